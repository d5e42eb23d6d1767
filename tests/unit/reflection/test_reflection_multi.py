"""Multi-conversation runs: a manifest, replay slices, and only unreflected watermarks move."""

from __future__ import annotations

import json
from pathlib import Path

from mini_letta.errors import TransientError
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.launch import launch_multi_reflection, launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import list_run_records, load_run_record
from mini_letta.reflection.state.watermark import read_reflection_state
from mini_letta.workspace import resolve_conversation
from support.reflection_kit import ScriptedProvider, add_turn


def _conversation(world, agent, *texts):
    store = resolve_conversation(world, agent, None, new=True)
    for text in texts:
        add_turn(store, world.clock, text)
    return store


def test_new_content_is_unreflected_and_old_content_is_replayed(world, agent):
    old = _conversation(world, agent, "我更喜欢用 tabs 缩进")
    assert launch_reflection(world, agent, old, LaunchOptions()).status == "merged"
    old_state = read_reflection_state(old)
    fresh = _conversation(world, agent, "I prefer tabs", "From now on we use pnpm")
    outcome = launch_multi_reflection(world, agent, [fresh, old], LaunchOptions(instruction="x"))
    assert (outcome.status, outcome.message) == ("merged", "Merged 1 reflection commit(s).")
    manifest = json.loads(Path(outcome.payload_path).read_text(encoding="utf-8"))
    assert manifest["type"] == "multi_transcript_reflection_payload"
    assert manifest["userInstruction"] == "x"
    modes = [(t["conversationId"], t["mode"]) for t in manifest["transcripts"]]
    assert modes == [(fresh.conversation_id, "unreflected"), (old.conversation_id, "replay")]
    for entry in manifest["transcripts"]:
        assert json.loads(Path(entry["payloadPath"]).read_text(encoding="utf-8"))["messages"]
    assert read_reflection_state(fresh).reflected_through_line == 3
    assert read_reflection_state(old) == old_state  # replay never moves a watermark
    human = (GitRepo(world.home.memory_dir(agent.id)).path / "system/human.md").read_text()
    assert human.count("tabs") == 1 and "pnpm" in human  # the replay deduplicated tabs
    record = load_run_record(world.home, agent.id, outcome.run_id)
    assert [s.mode for s in record.slices] == ["unreflected", "replay"]
    assert set(record.watermark_after) == {fresh.conversation_id}


def test_two_unreflected_conversations_both_advance(world, agent):
    one = _conversation(world, agent, "我叫李雷")
    two = _conversation(world, agent, "我更喜欢用 tabs 缩进")
    assert launch_multi_reflection(world, agent, [one, two], LaunchOptions()).status == "merged"
    assert read_reflection_state(one).reflected_through_line == 1
    assert read_reflection_state(two).reflected_through_line == 1


def test_a_failed_multi_run_moves_nothing(world, agent):
    one = _conversation(world, agent, "我叫李雷")
    two = _conversation(world, agent, "我更喜欢用 tabs 缩进")
    broken = LaunchOptions(provider=ScriptedProvider([TransientError("down")]))
    assert launch_multi_reflection(world, agent, [one, two], broken).status == "failed"
    for store in (one, two):
        state = read_reflection_state(store)
        assert state.reflected_through_message_id is None and state.consecutive_failures == 1


def test_nothing_anywhere_is_no_payload(world, agent):
    empty = resolve_conversation(world, agent, None, new=True)
    outcome = launch_multi_reflection(world, agent, [empty], LaunchOptions())
    assert outcome.skip_reason == "no_payload"


def test_the_budget_is_shared_the_first_slice_gets_it_first_and_goes_on_in_chunks(world, agent):
    # four logs of ~300 characters over 400-token chunks: big takes five runs, the first all its own
    logs = [f"帮我看下第 {n} 段日志 " + "x" * 300 for n in range(4)]
    big = _conversation(world, agent, "我更喜欢用 tabs 缩进", *logs, "以后一律用 pnpm")
    small = _conversation(world, agent, "我叫李雷")
    outcome = launch_multi_reflection(world, agent, [big, small], LaunchOptions(chunk_tokens=400))
    assert outcome.ok and outcome.message.startswith("Reflected in ")
    # the clock stands still, so run ids do not sort by time: order big's runs by their slices
    big_runs = sorted(
        (
            p
            for r in list_run_records(world.home, agent.id)
            for p in r.slices
            if p.conversation_id == big.conversation_id
        ),
        key=lambda p: p.start_line,
    )
    first = next(r for r in list_run_records(world.home, agent.id) if r.slices[0] == big_runs[0])
    assert [s.conversation_id for s in first.slices] == [big.conversation_id]  # all of it
    assert first.slices[0].truncated and len(big_runs) >= 3
    assert big_runs[0].start_line == 0 and big_runs[-1].slice_end_line == big.count()
    pairs = zip(big_runs, big_runs[1:], strict=False)
    assert all(a.slice_end_line == b.start_line for a, b in pairs)  # in order, no gap
    assert read_reflection_state(big).reflected_through_line == big.count() - 1
    assert read_reflection_state(small).reflected_through_line == small.count() - 1
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text()
    assert "tabs" in human and "pnpm" in human and "李雷" in human
