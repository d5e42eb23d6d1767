"""A refusal the next run would repeat (the gate's rejection, uncommitted memory) leaves the
watermark where it was and is told once, with the command that fixes it; `status` shows the fix
while it holds; a run that moves the watermark forgets it."""

from __future__ import annotations

import json

from mini_letta.cli.reflection_view import render_outcome_line
from mini_letta.reflection.policy.launcher import launch_automatic
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.outbox import post_automatic_outcome, take_outcomes
from mini_letta.reflection.state.watermark import read_reflection_state
from support.reflection_kit import ScriptedProvider, add_turn, git, respond, tool_call

INVENTED = {"command": "insert", "path": "system/human.md", "content": "- Owns a red sailboat"}


def _inventing_agent() -> ScriptedProvider:
    """A reflection agent that writes a fact the user never said: the gate rejects it."""
    return ScriptedProvider(
        [
            respond("", tool_call("memory", 1, **INVENTED)),
            respond("", tool_call("memory_commit", 2, message="reflection: invent")),
            respond("done"),
        ]
    )


def _launch(world, agent, store, provider=None):
    options = LaunchOptions(provider=provider) if provider else None
    outcome = launch_automatic(world, agent, store, "step-count", options=options)
    post_automatic_outcome(world.home, agent.id, outcome, clock=world.clock)
    world.clock.advance(3600)
    return outcome


def test_a_repeated_gate_rejection_is_told_once_with_the_command_that_fixes_it(
    world, agent, store, cli
):
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="好")
    first = _launch(world, agent, store, _inventing_agent())
    second = _launch(world, agent, store, _inventing_agent())
    assert (first.status, second.status) == ("rejected", "rejected")
    assert first.fix and f"mini-letta reflections accept {first.run_id}" in first.fix
    assert not first.told_before and second.told_before
    assert first.worth_reporting and not second.worth_reporting
    line = render_outcome_line(first)
    assert "to fix it:" in line and f"reflections show {first.run_id}" in line
    told = take_outcomes(world.home, agent.id, world.clock)
    assert [o.run_id for o in told] == [first.run_id]  # the repeat is not told again

    state = read_reflection_state(store)
    assert state.reflected_through_message_id is None  # the slice waits: nothing is lost
    assert f"reflections accept {second.run_id}" in (state.refusal_fix or "")
    shown = cli("status")
    assert f"held back until fixed: `mini-letta reflections show {second.run_id}`" in shown.stdout
    (conversation,) = json.loads(cli("status", "--output-format", "json").stdout)["conversations"]
    assert second.run_id in conversation["refusalFix"]

    cli("reflections", "accept", second.run_id)
    state = read_reflection_state(store)
    assert state.reflected_through_message_id is not None
    assert (state.told_refusal, state.refusal_fix) == (None, None)
    assert "held back" not in cli("status").stdout


def test_uncommitted_memory_is_told_once_then_a_merge_forgets_it(world, agent, store):
    memory = world.home.memory_dir(agent.id)
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="好")
    (memory / "notes.md").write_text("---\ndescription: mine\n---\nhand edit\n")
    first, second = _launch(world, agent, store), _launch(world, agent, store)
    assert (first.skip_reason, second.skip_reason) == ("parent_dirty", "parent_dirty")
    assert "memory status" in (first.fix or "") and "to fix it:" in render_outcome_line(first)
    assert (first.told_before, second.told_before) == (False, True)

    git(memory, "add", "-A")
    git(memory, "commit", "-qm", "my note")
    merged = _launch(world, agent, store)
    assert merged.status == "merged" and merged.fix is None
    assert read_reflection_state(store).refusal_fix is None
    (memory / "notes.md").write_text("---\ndescription: mine\n---\nanother hand edit\n")
    add_turn(store, world.clock, "I prefer vim as my editor.", answer="ok")
    again = _launch(world, agent, store)
    assert again.skip_reason == "parent_dirty" and not again.told_before  # told again


def test_a_failure_a_later_run_may_not_repeat_has_no_fix(world, agent, store):
    from mini_letta.errors import TransientError

    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="好")
    failed = _launch(world, agent, store, ScriptedProvider([TransientError("overloaded")]))
    assert failed.status == "failed" and failed.fix is None and not failed.told_before
    assert "to fix it" not in render_outcome_line(failed)
    assert read_reflection_state(store).refusal_fix is None
