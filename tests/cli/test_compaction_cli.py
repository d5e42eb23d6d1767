"""Compaction through the CLI: the chapter's 1,200-token window, `compact`, `conversations show`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mini_letta.llm.mock_memory import remembered_fact
from support.compaction_fakes import CHINESE_TURNS

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")

LINE = re.compile(r"^  ↻ compacted (\d+) messages \((\d+) → (\d+) tokens\)$", re.MULTILINE)
REFLECTED = re.compile(r"^  ☾ reflection \d{14}-[0-9a-f]{8}: (merged|no_changes) — ", re.MULTILINE)


def _conv_dir(home: Path, conversation_id: str) -> Path:
    (agent_dir,) = (home / "agents").iterdir()
    return agent_dir / "conversations" / conversation_id


def _show(cli, conversation_id: str) -> dict:
    result = cli("conversations", "show", conversation_id, "--json", "-n", "1000")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_twelve_turns_in_a_1200_token_window(cli, home):
    first = cli("chat", "-p", CHINESE_TURNS[0], "--context-window", "1200", "--output-format=json")
    conversation = json.loads(first.stdout)["conversationId"]
    event_file = _conv_dir(home.root, conversation) / "compaction-event.json"
    summaries: list[str] = []
    for text in CHINESE_TURNS[1:]:
        result = cli("chat", "-p", text, "--context-window", "1200")
        assert result.code == 0, result.stderr
        fact = remembered_fact(text)  # "请记住…" makes the mock call the memory tool first
        expected = f"（mock）我记住了：{fact}" if fact else f"（mock）我听到了：{text}"
        assert result.stdout == expected + "\n"
        lines = LINE.findall(result.stderr)
        for _, before, after in lines:
            assert int(after) < int(before)
        # The default trigger (compaction-event): each compacting turn reflects once after it.
        reflections = REFLECTED.findall(result.stderr)
        assert len(reflections) == (1 if lines else 0), result.stderr
        if lines:
            event = json.loads(event_file.read_text(encoding="utf-8"))
            assert event["pending"] is False and event["schemaVersion"] == 1  # consumed
            assert event["summaryMessageId"] not in summaries
            summaries.append(event["summaryMessageId"])
    assert summaries
    shown = _show(cli, conversation)
    log = shown["messages"]
    assert [m["content"] for m in log if m["role"] == "user"] == list(CHINESE_TURNS)
    assert [m["id"] for m in log if m["role"] == "summary"] == summaries
    assert shown["context"]["summaryMessageId"] == summaries[-1]
    assert shown["contextTokens"] < 1200


def test_stream_json_and_json_report_compactions(cli):
    events = []
    for index, text in enumerate(CHINESE_TURNS[:6]):
        args = ["chat", "-p", text, "--context-window", "1000", "--output-format", "stream-json"]
        result = cli(*args, *(["--new"] if index == 0 else []))
        assert result.code == 0, result.stderr
        events += [json.loads(line) for line in result.stdout.splitlines()]
    compactions = [e for e in events if e["type"] == "compaction"]
    assert compactions
    for event in compactions:
        assert event["messagesCompacted"] > 0 and event["tokensAfter"] < event["tokensBefore"]
        assert event["trigger"] in ("before-call", "after-response")
    results = [e for e in events if e["type"] == "result"]
    assert sum(r["compactions"] for r in results) == len(compactions)
    summary_messages = [
        e for e in events if e["type"] == "message" and e["message"]["role"] == "summary"
    ]
    assert [m["message"]["id"] for m in summary_messages] == [
        c["summaryMessageId"] for c in compactions
    ]
    data = json.loads(cli("chat", "-p", "再来一句", "--output-format", "json").stdout)
    assert data["compactions"] == 0


def test_compact_command(cli, home):
    for text in CHINESE_TURNS[:5]:
        assert cli("chat", "-p", text).code == 0
    conversation = json.loads(cli("conversations", "list", "--json").stdout)[0]["id"]
    before = _show(cli, conversation)["contextTokens"]
    result = cli("compact")
    assert result.code == 0, result.stderr
    match = re.match(
        r"Compacted (\d+) messages \((\d+) → (\d+) tokens\); summary (msg-\w+)\.", result.stdout
    )
    assert match, result.stdout
    shown = _show(cli, conversation)
    assert shown["contextTokens"] < before
    assert shown["context"]["summaryMessageId"] == match.group(4)
    event = json.loads((_conv_dir(home.root, conversation) / "compaction-event.json").read_text())
    assert event["trigger"] == "manual" and event["pending"] is True
    assert len(shown["messages"]) == 11  # ten messages and the summary: nothing was removed
    again = cli("compact", "--conversation", conversation, "--json")
    assert json.loads(again.stdout)["conversationId"] == conversation


def test_compact_with_nothing_to_compact(cli):
    cli("chat", "-p", "你好")
    result = cli("compact")
    assert result.code == 0 and result.stdout.startswith("Nothing to compact")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compact", "--conversation", "conv-missing"], "not found"),
        (["compact", "--agent", "nobody"], "no agent"),
    ],
    ids=["unknown-conversation", "unknown-agent"],
)
def test_compact_bad_targets(cli, args, needle):
    cli("chat", "-p", "你好")
    result = cli(*args)
    assert result.code == 1 and needle in result.stderr


def test_compact_without_a_current_conversation(cli):
    cli("agents", "create", "--name", "empty")
    result = cli("compact")
    assert result.code == 1 and "no current conversation" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["chat", "-p", "x", "--context-window", "0"],
        ["chat", "-p", "x", "--context-window", "-5"],
        ["chat", "-p", "x", "--context-window", "many"],
        ["chat", "-p", "x", "--context-window", "1.5"],
        ["agents", "create", "--context-window", "0"],
        ["compact", "--context-window", "zero"],
    ],
    ids=["chat-zero", "chat-negative", "chat-word", "chat-float", "agents-zero", "compact-word"],
)
def test_invalid_context_window_exits_2(cli, args):
    result = cli(*args)
    assert result.code == 2
    assert "--context-window" in result.stderr


def test_a_window_too_small_is_a_clear_error(cli):
    result = cli("chat", "-p", "帮我看下这个报错", "--context-window=30", "--output-format=json")
    assert result.code == 1
    assert "context window of 30 tokens is too small" in result.stderr
    data = json.loads(result.stdout)
    assert data["stopReason"] == "error" and data["compactions"] == 0
    shown = _show(cli, data["conversationId"])
    assert [m["content"] for m in shown["messages"]] == ["帮我看下这个报错"]
    ok = cli("chat", "-p", "现在正常了", "--output-format", "json")
    assert ok.code == 0 and json.loads(ok.stdout)["result"] == "（mock）我听到了：现在正常了"


def test_conversations_show_reports_tokens_and_window(cli):
    cli("agents", "create", "--name", "small", "--context-window", "1200")
    cli("chat", "-p", "你好，我们开始吧")
    conversation = json.loads(cli("conversations", "list", "--json").stdout)[0]["id"]
    shown = _show(cli, conversation)
    assert shown["contextWindow"] == 1200 and 0 < shown["contextTokens"] < 1200
    text = cli("conversations", "show", conversation).stdout
    assert f"about {shown['contextTokens']} tokens in context, window 1200 tokens" in text


def test_interactive_compact(cli):
    script = "第一句话，今天天气很好\n第二句话，我们去公园\n第三句\n/compact\n/compact\n"
    result = cli(stdin=script)
    assert result.code == 0, result.stderr
    assert LINE.search(result.stderr)
    assert "Nothing to compact yet." in result.stderr
