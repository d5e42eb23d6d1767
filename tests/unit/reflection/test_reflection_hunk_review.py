"""The review model: after the deterministic gate, a second model (here the real OpenAI SDK
against the scripted server) accepts or rejects each hunk in a strict JSON answer; its
verdicts reach the run record and `reflections show`; a bad answer holds the run back."""

from __future__ import annotations

import json

import pytest

from mini_letta.llm.base import close_provider
from mini_letta.llm.registry import ProviderOptions, build_provider
from mini_letta.reflection.gate.hunk_review import ReviewHunk, parse_verdicts
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import load_run_record
from support.groups import SDK
from support.reflection_kit import ScriptedProvider, add_turn, respond, tool_call
from support.scripted_server import openai_completion

HUMAN = "system/human.md"


@pytest.fixture
def reviewer(scripted_server, clock):
    built = build_provider(
        "openai/gpt-4o-mini",
        ProviderOptions(
            environ={"OPENAI_API_KEY": "sk-test-dummy"}, base_url=scripted_server.url, clock=clock
        ),
    )
    yield built
    close_provider(built)


def _reflect(world, agent, store, reviewer, *edits):
    steps = [respond("", tool_call("memory", n, **edit)) for n, edit in enumerate(edits, 1)]
    steps.append(respond("", tool_call("memory_commit", 99, message="reflection: update")))
    options = LaunchOptions(provider=ScriptedProvider(steps), review_provider=reviewer)
    return launch_reflection(world, agent, store, options)


def _verdicts(*pairs):
    return json.dumps(
        {
            "verdicts": [
                {"hunk": n, "decision": decision, "reason": reason}
                for n, (decision, reason) in enumerate(pairs, 1)
            ]
        }
    )


@SDK
def test_accepted_hunks_merge_and_the_verdicts_are_recorded(
    world, agent, store, reviewer, scripted_server, cli
):
    (turn,) = [add_turn(store, world.clock, "I prefer tabs for indentation")]
    scripted_server.queue(openai_completion(_verdicts(("accept", "the user said so"))))
    edit = {
        "command": "insert",
        "path": HUMAN,
        "content": "- Prefers tabs",
        "evidence": [turn[0].id],
    }
    outcome = _reflect(world, agent, store, reviewer, edit)
    assert outcome.status == "merged", outcome.message
    body = scripted_server.requests[-1].body
    asked = json.loads(body["messages"][-1]["content"])
    assert asked["hunks"][0]["added"][-1] == "- Prefers tabs"
    assert asked["hunks"][0]["userWords"] == ["I prefer tabs for indentation"]
    record = load_run_record(world.home, agent.id, outcome.run_id)
    assert record.review == (
        {"hunk": 1, "path": HUMAN, "decision": "accept", "reason": "the user said so"},
    )
    shown = cli("reflections", "show", outcome.run_id, "--agent", agent.id)
    assert f"review:       hunk 1 of {HUMAN}: accept — the user said so" in shown.stdout


@SDK
def test_a_rejected_hunk_holds_the_run_back_with_the_reviewers_reason(
    world, agent, store, reviewer, scripted_server
):
    (turn,) = [add_turn(store, world.clock, "I like tea, mostly green tea")]
    scripted_server.queue(openai_completion(_verdicts(("reject", "green is not in the line"))))
    edit = {"command": "insert", "path": HUMAN, "content": "- Likes tea", "evidence": [turn[0].id]}
    head = world.home.memory_dir(agent.id)
    outcome = _reflect(world, agent, store, reviewer, edit)
    assert outcome.status == "rejected"
    assert "the review model rejects hunk 1 of system/human.md: green is not in" in outcome.message
    assert "- Likes tea" not in (head / HUMAN).read_text()


@SDK
def test_an_answer_outside_the_schema_holds_the_run_back(
    world, agent, store, reviewer, scripted_server
):
    (turn,) = [add_turn(store, world.clock, "I like tea")]
    scripted_server.queue(openai_completion("Looks fine to me!"))
    edit = {"command": "insert", "path": HUMAN, "content": "- Likes tea", "evidence": [turn[0].id]}
    outcome = _reflect(world, agent, store, reviewer, edit)
    assert outcome.status == "rejected" and "did not answer in the schema" in outcome.message


def test_the_deterministic_gate_runs_first_and_the_reviewer_is_not_asked(
    world, agent, store, reviewer, scripted_server
):
    (turn,) = [add_turn(store, world.clock, "I prefer tabs")]
    edit = {
        "command": "insert",
        "path": HUMAN,
        "content": "- Lives in Berlin",
        "evidence": [turn[0].id],
    }
    outcome = _reflect(world, agent, store, reviewer, edit)
    assert outcome.status == "rejected" and "'Berlin' not found" in outcome.message
    assert scripted_server.requests == []


@pytest.mark.parametrize(
    "answer",
    [
        '{"verdicts": []}',
        '{"verdicts": [{"hunk": 2, "decision": "accept", "reason": "x"}]}',
        '{"verdicts": [{"hunk": 1, "decision": "maybe", "reason": "x"}]}',
        '{"verdicts": [{"hunk": 1, "decision": "accept", "reason": " "}]}',
        '{"verdicts": [{"hunk": 1, "decision": "accept", "reason": "x", "extra": 1}]}',
        '{"verdicts": [], "note": "x"}',
        "[]",
    ],
)
def test_parse_verdicts_is_strict(answer):
    hunks = [ReviewHunk(1, HUMAN, (), ("- x",), ())]
    with pytest.raises(ValueError):
        parse_verdicts(answer, hunks)


def test_sleeptime_stores_the_review_model(cli):
    shown = cli(
        "sleeptime",
        "--review-model",
        "openai/gpt-4o-mini",
        "--review-base-url",
        "http://127.0.0.1:9",
    )
    assert shown.code == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["reviewModel"] == "openai/gpt-4o-mini"
    assert data["reviewBaseUrl"] == "http://127.0.0.1:9"
    reset = json.loads(cli("sleeptime", "--review-model", "").stdout)
    assert "reviewModel" not in reset and "reviewBaseUrl" not in reset
    bad = cli("sleeptime", "--review-model", "nonsense")
    assert bad.code == 2 and "unknown model" in bad.stderr
