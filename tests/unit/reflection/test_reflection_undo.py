"""Undo of a merged run: memory reverted, the slice offered again, the record marked."""

from __future__ import annotations

import pytest

from mini_letta.errors import ReflectionError, TransientError
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.history.undo import undo_reflection_run
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import load_run_record
from mini_letta.reflection.state.watermark import (
    read_reflection_state,
    steps_since_last_reflection,
)
from mini_letta.workspace import resolve_conversation
from support.agents import fresh_agent
from support.reflection_kit import ScriptedProvider, add_turn, git, respond, tool_call


@pytest.fixture
def setup(world):
    agent = fresh_agent(world)
    store = resolve_conversation(world, agent, None)
    return agent, store, GitRepo(world.home.memory_dir(agent.id))


def test_undo_reverts_and_the_next_run_reconsiders_the_slice(world, setup):
    agent, store, parent = setup
    original = (parent.path / "system/human.md").read_text()
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进")
    first = launch_reflection(world, agent, store, LaunchOptions())
    assert first.status == "merged"
    reverts = undo_reflection_run(world.home, agent.id, first.run_id, world.clock)
    assert len(reverts) == 1 and parent.head_sha() == reverts[0]
    assert (parent.path / "system/human.md").read_text() == original
    state = read_reflection_state(store)
    assert state.reflected_through_message_id is None and state.last_reflection_status == "undone"
    assert steps_since_last_reflection(store) == 1
    assert load_run_record(world.home, agent.id, first.run_id).status == "undone"
    again = launch_reflection(world, agent, store, LaunchOptions())
    assert again.status == "merged" and "tabs" in (parent.path / "system/human.md").read_text()


def test_undo_rewinds_to_the_earlier_watermark_not_to_nothing(world, setup):
    agent, store, _ = setup
    add_turn(store, world.clock, "我叫李雷")
    launch_reflection(world, agent, store, LaunchOptions())
    kept = read_reflection_state(store).reflected_through_message_id
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进")
    second = launch_reflection(world, agent, store, LaunchOptions())
    undo_reflection_run(world.home, agent.id, second.run_id, world.clock)
    state = read_reflection_state(store)
    assert (state.reflected_through_message_id, state.reflected_through_line) == (kept, 1)
    store.files.reflection_state.write_text("{")  # a rebuild must not count the undone run
    assert read_reflection_state(store, clock=world.clock).reflected_through_line == 1


def test_undo_of_a_fast_forward_with_two_commits_reverts_both(world, setup):
    agent, store, parent = setup
    add_turn(store, world.clock, "remember one, and then two")
    human = "system/human.md"
    steps = [
        respond("", tool_call("memory", 1, command="insert", path=human, content="- one")),
        respond("", tool_call("memory_commit", 2, message="reflection: one")),
        respond("", tool_call("memory", 3, command="insert", path=human, content="- two")),
        respond("", tool_call("memory_commit", 4, message="reflection: two")),
        respond("done"),
    ]
    run = launch_reflection(world, agent, store, LaunchOptions(provider=ScriptedProvider(steps)))
    assert run.message == "Merged 2 reflection commit(s)."
    before = load_run_record(world.home, agent.id, run.run_id).parent_head_before
    assert len(undo_reflection_run(world.home, agent.id, run.run_id, world.clock)) == 2
    assert git(parent.path, "diff", before, "HEAD").strip() == ""


def test_only_merged_runs_can_be_undone(world, setup):
    agent, store, _ = setup
    add_turn(store, world.clock, "我叫李雷")
    failed = launch_reflection(
        world, agent, store, LaunchOptions(provider=ScriptedProvider([TransientError("x")]))
    )
    with pytest.raises(ReflectionError, match="is failed, not merged"):
        undo_reflection_run(world.home, agent.id, failed.run_id, world.clock)
