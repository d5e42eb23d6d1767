"""`mini-letta status`: what a user checks when reflection seems quiet."""

from __future__ import annotations

import json

import pytest

from mini_letta.clock import SystemClock, format_timestamp
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.reflection.policy.launcher import QueuedLaunch, put_queued_launch
from mini_letta.reflection.state.lease import acquire_lease
from mini_letta.reflection.state.watermark import read_reflection_state, save_reflection_state
from mini_letta.structs import replace

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _status(cli) -> dict:
    result = cli("status", "--output-format", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_a_fresh_agent(cli):
    cli("chat", "-p", "hello")
    data = _status(cli)
    assert data["agent"]["model"] == "mock" and data["reflectionModel"] == "mock"
    assert data["memory"]["clean"] is True and len(data["memory"]["head"]) == 40
    assert data["memory"]["needsReview"] == []
    assert data["reflection"]["trigger"] == "compaction-event"
    assert data["lastRun"] is None and data["running"] is None and data["queued"] is None
    [conversation] = data["conversations"]
    assert conversation["current"] is True and conversation["messages"] == 2
    assert conversation["stepsSinceReflection"] == 1
    text = cli("status").stdout
    assert "last run    none yet" in text and "1 step(s) since reflection" in text


def test_after_a_merge_and_with_a_step_count_trigger(cli, project_agent):
    cli("sleeptime", "--trigger", "step-count", "--steps", "2")
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    cli("chat", "-p", "今天我们决定以后一律用 pnpm")
    cli("chat", "-p", "好的")
    data = _status(cli)
    assert data["lastRun"]["status"] == "merged"
    assert data["conversations"][0]["stepsSinceReflection"] == 1
    assert data["conversations"][0]["stepsNeeded"] == 2
    assert "(reflects at 2)" in cli("status").stdout


def test_running_queued_and_failing_runs_are_shown(cli, home):
    cli("chat", "-p", "hello")
    data = _status(cli)
    agent_id, conversation_id = data["agent"]["id"], data["conversations"][0]["id"]
    real = Home(home.root)
    clock = SystemClock()
    now = format_timestamp(clock.now())
    put_queued_launch(real, agent_id, QueuedLaunch("step-count", conversation_id, now, 1))
    store = ConversationStore(agent_id, conversation_id, real)
    failing = replace(
        read_reflection_state(store), consecutive_failures=2, last_reflection_started_at=now
    )
    save_reflection_state(store, failing)
    with acquire_lease(real, agent_id, "20261203000000-0123abcd", clock):
        data = _status(cli)
        text = cli("status").stdout
    assert data["running"]["runId"] == "20261203000000-0123abcd"
    assert data["queued"] == {
        "trigger": "step-count", "conversationId": conversation_id, "queuedAt": now
    }  # fmt: skip
    assert data["conversations"][0]["consecutiveFailures"] == 2
    assert data["conversations"][0]["nextRetryAt"] is not None
    assert "running     20261203000000-0123abcd" in text
    assert f"queued      a step-count launch for {conversation_id}" in text
    assert "2 failure(s) in a row, next automatic try after" in text
    assert _status(cli)["running"] is None  # released


def test_uncommitted_memory_is_shown(cli):
    cli("chat", "-p", "hello")
    memory = _status(cli)["memory"]["path"]
    with open(f"{memory}/system/human.md", "a", encoding="utf-8") as handle:
        handle.write("hand edit\n")
    data = _status(cli)
    assert data["memory"]["clean"] is False and data["memory"]["uncommittedChanges"] == 1
    assert "1 uncommitted change(s)" in cli("status").stdout


def test_a_bad_output_format_is_a_usage_error(cli):
    result = cli("status", "--output-format", "yaml")
    assert result.code == 2 and "yaml" in result.stderr


def test_a_rejected_last_run_lists_its_reasons(cli, tmp_path):
    cli("chat", "-p", "hello")
    script = tmp_path / "deletes.json"
    delete = {"command": "delete", "path": "system/human.md"}
    script.write_text(
        json.dumps(
            [
                {"toolCalls": [{"name": "memory", "arguments": delete}]},
                {"toolCalls": [{"name": "memory_commit", "arguments": {"message": "r: tidy"}}]},
                "done",
            ]
        )
    )
    assert cli("reflect", "--model", f"script:{script}").code == 1
    last = _status(cli)["lastRun"]
    assert last["status"] == "rejected"
    assert last["reasons"] == [
        "deletes system/human.md (a system/ file is never deleted automatically)"
    ]
    assert "rejected — deletes system/human.md" in cli("status").stdout


def test_the_stored_reflection_model_is_shown(cli):
    cli("chat", "-p", "hello")
    cli("sleeptime", "--model", "ollama/qwen3")
    data = _status(cli)
    assert data["agent"]["model"] == "mock" and data["reflectionModel"] == "ollama/qwen3"
    assert "models      mock; reflection: ollama/qwen3\n" in cli("status").stdout
