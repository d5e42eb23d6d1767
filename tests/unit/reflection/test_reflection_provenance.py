"""Provenance: `memory blame` names the run behind each line, `memory why` the messages a run
cited for a line, read from the conversation by id."""

from __future__ import annotations

import json

import pytest

from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import MemoryEditError
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.history.provenance import blame_file, why_line
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import list_run_records
from mini_letta.workspace import resolve_conversation
from support.agents import fresh_agent
from support.reflection_kit import ScriptedProvider, add_turn, respond, tool_call

HUMAN = "system/human.md"


def _reflect(world, agent, store, *edits):
    steps = [respond("", tool_call("memory", n, **edit)) for n, edit in enumerate(edits, 1)]
    steps.append(respond("", tool_call("memory_commit", 99, message="reflection: update")))
    provider = ScriptedProvider([*steps, respond("done")])
    outcome = launch_reflection(world, agent, store, LaunchOptions(provider=provider))
    assert outcome.status == "merged", outcome.message
    return outcome


def _reflected_story(world, agent) -> None:
    """Two turns, and a merged run that writes two lines, one citing the first turn."""
    store = resolve_conversation(world, agent, None)
    turn = add_turn(store, world.clock, "I switched to decaf this year", answer="noted")
    add_turn(store, world.clock, "and I like quiet mornings", answer="noted")
    _reflect(
        world,
        agent,
        store,
        {"command": "insert", "path": HUMAN, "content": "- Drinks decaf", "evidence": [turn[0].id]},
        {"command": "insert", "path": HUMAN, "content": "- Likes quiet mornings"},
    )


@pytest.fixture
def agent(world):
    """An agent after `_reflected_story`: a copy of one made once per worker (every test here
    only reads what the run left)."""
    return fresh_agent(world, setup=_reflected_story)


@pytest.fixture
def reflected(world, agent):
    """(the first turn's messages, the merged run's record), read from the copy."""
    (record,) = list_run_records(world.home, agent.id)
    assert record.status == "merged"
    store = ConversationStore(agent.id, record.conversation_id, world.home)
    return [message for _, message in store.iter_from(0)][:2], record


def test_blame_names_the_run_behind_each_line(world, agent, reflected):
    _, outcome = reflected
    lines = blame_file(GitRepo(world.home.memory_dir(agent.id)), HUMAN)
    by_text = {line.text: line for line in lines}
    assert by_text["- Drinks decaf"].run_id == outcome.run_id
    assert by_text["- Likes quiet mornings"].run_id == outcome.run_id
    assert by_text["---"].run_id is None  # the starter commit was not a reflection
    assert [line.number for line in lines] == list(range(1, len(lines) + 1))


def test_why_prints_the_cited_message_or_says_none_was_cited(world, agent, reflected):
    turn, outcome = reflected
    lines = blame_file(GitRepo(world.home.memory_dir(agent.id)), HUMAN)
    numbers = {line.text: line.number for line in lines}
    why = why_line(world.home, agent.id, HUMAN, numbers["- Drinks decaf"])
    assert why.cited == (turn[0].id,)
    assert [(cid, m.content) for cid, m in why.messages] == [
        (why.record.conversation_id, "I switched to decaf this year")
    ]
    uncited = why_line(world.home, agent.id, HUMAN, numbers["- Likes quiet mornings"])
    assert uncited.line.run_id == outcome.run_id and uncited.messages == ()


def test_why_refuses_a_line_past_the_end(world, agent, reflected):
    with pytest.raises(MemoryEditError, match="not 999"):
        why_line(world.home, agent.id, HUMAN, 999)


def test_cli_blame_and_why(world, agent, reflected, cli):
    turn, outcome = reflected
    blamed = cli("memory", "blame", HUMAN, "--agent", agent.id)
    assert blamed.code == 0
    decaf = next(line for line in blamed.stdout.splitlines() if line.endswith("- Drinks decaf"))
    assert outcome.run_id in decaf
    number = decaf.rsplit(":", 1)[0].split()[-1]
    why = cli("memory", "why", f"{HUMAN}:{number}", "--agent", agent.id)
    assert why.code == 0 and f"written by reflection run {outcome.run_id}" in why.stdout
    assert f"{turn[0].id} [" in why.stdout and "I switched to decaf this year" in why.stdout
    rows = json.loads(cli("memory", "blame", HUMAN, "--json", "--agent", agent.id).stdout)
    assert rows[0]["line"] == 1 and {"commit", "date", "runId", "text"} <= set(rows[0])
    first = cli("memory", "why", f"{HUMAN}:1", "--agent", agent.id)
    assert "no evidence was cited for this line" in first.stdout
    bad = cli("memory", "why", HUMAN, "--agent", agent.id)
    assert bad.code == 2 and "is not FILE:LINE" in bad.stderr and "Traceback" not in bad.stderr
