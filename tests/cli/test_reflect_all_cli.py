"""`reflect --all` as a user runs it: a JSON event per slice, Ctrl-C (a real SIGINT to a real
process) stops after the slice in progress and keeps it, and a later `reflect --all` resumes."""

from __future__ import annotations

import json

from mini_letta.reflection.state.records import list_run_records
from mini_letta.reflection.state.watermark import read_reflection_state
from mini_letta.workspace import new_agent, resolve_conversation
from support.interrupt import SHARES_THE_FORKER, interrupt_during_model_call
from support.reflection_kit import add_turn
from support.scripted_server import Reply, openai_completion

BACKLOG_TURNS = 12  # three slices at a 4,096-token window
FILLER = "We walked through the next part of the migration script and its error handling. " * 3


def _backlog(world, model: str):
    agent = new_agent(world, name="backlog", model=model, context_window=4_096)
    store = resolve_conversation(world, agent, None)
    for n in range(BACKLOG_TURNS):
        add_turn(store, world.clock, f"{FILLER} ({n})", answer="Sure, next step.")
    add_turn(store, world.clock, "I prefer tabs for indentation.", answer="Noted.")
    return agent, store


def test_stream_json_gives_the_plan_then_an_event_per_slice(cli, world):
    agent, store = _backlog(world, "mock")
    args = ("--agent", agent.id, "--conversation", store.conversation_id)
    result = cli("reflect", "--all", "--output-format", "stream-json", *args)
    assert result.code == 0, result.stderr
    plan, *events = [json.loads(line) for line in result.stdout.splitlines()]
    assert plan["type"] == "reflection_plan" and plan["slices"] >= 2
    assert plan["estimatedCostUsd"] is None  # the mock has no price
    assert [e["slicesDone"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["messagesLeft"] == 0 and events[-1]["slicesLeft"] == 0
    assert {e["status"] for e in events} <= {"merged", "no_changes"}


@SHARES_THE_FORKER
def test_ctrl_c_stops_after_the_slice_and_a_later_run_resumes(
    cli, world, scripted_server, model_commands, tmp_path
):
    agent, store = _backlog(world, "openai/x")
    # the first slice's model call waits, so the signal arrives while that slice runs
    reply = openai_completion("Nothing lasting here.")
    scripted_server.queue(Reply(body=reply.body, delay=3))
    args = ["--agent", agent.id, "--conversation", store.conversation_id]
    child = interrupt_during_model_call(
        ["reflect", "--all", *args],
        commands=model_commands,
        home=world.home.root,
        folder=tmp_path / "child",
        cwd=world.cwd,
        server=scripted_server,
        asking="(0)",  # the first slice's messages
        timeout=60,
    )
    assert child.code == 130, child.stderr
    assert "Traceback" not in child.stderr and "Stopping after this slice" in child.stderr
    assert "`mini-letta reflect --all` goes on from there" in child.stderr
    (first,) = list_run_records(world.home, agent.id)
    assert first.status == "no_changes"  # the slice in progress finished and was kept
    state = read_reflection_state(store)
    assert state.reflected_through_line == first.slices[0].slice_end_line - 1
    keys = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url}
    resumed = cli("reflect", "--all", "--model", "mock", *args, env=keys)
    assert resumed.code == 0, resumed.stderr
    records = list_run_records(world.home, agent.id)
    lines = sorted((r.slices[0].start_line, r.slices[0].slice_end_line) for r in records)
    assert lines[0][0] == 0 and lines[-1][1] == store.count()
    assert all(a[1] == b[0] for a, b in zip(lines, lines[1:], strict=False))
