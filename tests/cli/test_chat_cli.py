"""The headless chat contract: output, exit codes, conversation continuity, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_chat_seed_first_output(cli, project_agent):
    result = cli("chat", "-p", "帮我看下这个报错")
    assert result.code == 0, result.stderr
    assert result.stdout == "（mock）我听到了：帮我看下这个报错\n"


def test_version_prints_and_creates_nothing(cli, home):
    result = cli("--version")
    assert result.code == 0
    assert result.stdout.startswith("mini-letta ")
    assert not home.root.exists()


def test_second_chat_continues_the_same_conversation(cli, project_agent):
    first = json.loads(cli("chat", "-p", "one", "--output-format", "json").stdout)
    second = json.loads(cli("chat", "-p", "two", "--output-format", "json").stdout)
    assert first["conversationId"] == second["conversationId"]
    assert first["agentId"] == second["agentId"]
    shown = json.loads(cli("conversations", "show", first["conversationId"], "--json").stdout)
    assert shown["messageCount"] == 4
    assert [m["content"] for m in shown["messages"] if m["role"] == "user"] == ["one", "two"]


def test_new_starts_a_conversation_and_makes_it_current(cli, project_agent):
    first = json.loads(cli("chat", "-p", "one", "--output-format", "json").stdout)
    fresh = json.loads(cli("chat", "-p", "two", "--new", "--output-format", "json").stdout)
    again = json.loads(cli("chat", "-p", "three", "--output-format", "json").stdout)
    assert fresh["conversationId"] != first["conversationId"]
    assert again["conversationId"] == fresh["conversationId"]
    back = json.loads(
        cli(
            "chat",
            "-p",
            "four",
            "--conversation",
            first["conversationId"],
            "--output-format",
            "json",
        ).stdout
    )
    assert back["conversationId"] == first["conversationId"]


def test_json_output_fields(cli, project_agent):
    result = cli("chat", "-p", "hello", "--output-format", "json")
    data = json.loads(result.stdout)
    assert data["type"] == "result"
    assert data["result"] == "（mock）我听到了：hello"
    assert data["stopReason"] == "end_turn"
    assert data["agentId"].startswith("agent-")
    assert data["conversationId"].startswith("conv-")
    assert data["usage"]["inputTokens"] > 0 and data["usage"]["outputTokens"] > 0
    assert isinstance(data["durationMs"], int)
    assert data["steps"] == 1


def test_stream_json_event_order(cli, project_agent):
    result = cli("chat", "-p", "hello", "--output-format", "stream-json")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events] == ["system", "message", "message", "result"]
    assert events[1]["message"]["role"] == "user"
    assert events[2]["message"]["role"] == "assistant"
    assert events[2]["message"]["stopReason"] == "end_turn"
    assert events[-1]["result"] == "（mock）我听到了：hello"


def test_prompt_from_stdin(cli, project_agent):
    result = cli("chat", "-p", "-", stdin="来自标准输入\n")
    assert result.stdout == "（mock）我听到了：来自标准输入\n"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["chat", "-p", "   "], "prompt is empty"),
        (["chat"], "needs -p"),
        (["chat", "-p", "x", "--bogus"], "No such option"),
        (["chat", "-p", "x", "--output-format", "xml"], "text"),
        (["chat", "-p", "x", "--max-steps", "0"], "max-steps"),
        (["nonsense"], "No such command"),
    ],
    ids=["empty-prompt", "no-prompt", "unknown-flag", "bad-format", "bad-max-steps", "bad-cmd"],
)
def test_usage_errors_exit_2(cli, project_agent, args, needle):
    result = cli(*args)
    assert result.code == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_unknown_model_lists_providers(cli, project_agent):
    result = cli("chat", "-p", "x", "--model", "nope/x")
    assert result.code == 2  # a flag value: a usage error
    assert "unknown model" in result.stderr and "openai" in result.stderr


def test_unknown_agent_and_conversation(cli, project_agent):
    assert cli("chat", "-p", "x", "--agent", "nobody").code == 1
    result = cli("chat", "-p", "x", "--conversation", "conv-missing")
    assert result.code == 1
    assert "conv-missing" in result.stderr and "not found" in result.stderr


def _agent_dir(home: Path) -> Path:
    (agent_dir,) = (home / "agents").iterdir()
    return agent_dir


def test_corrupt_agent_json_names_the_file_and_keeps_it(cli, project_agent, home):
    cli("chat", "-p", "hi")
    agent_file = _agent_dir(home.root) / "agent.json"
    agent_file.write_text("{not json", encoding="utf-8")
    result = cli("chat", "-p", "again")
    assert result.code == 1
    assert str(agent_file) in result.stderr and "corrupt" in result.stderr
    assert agent_file.read_text(encoding="utf-8") == "{not json"


def test_corrupt_conversation_json(cli, project_agent, home):
    cli("chat", "-p", "hi")
    (conv_dir,) = (_agent_dir(home.root) / "conversations").iterdir()
    (conv_dir / "conversation.json").write_text("[1, 2]", encoding="utf-8")
    result = cli("chat", "-p", "again")
    assert result.code == 1
    assert "conversation.json" in result.stderr and "corrupt" in result.stderr


@pytest.mark.parametrize("which", ["global", "project"])
def test_corrupt_settings_file(cli, project_agent, home, project, which):
    if which == "global":
        path = home.root / "settings.json"
    else:
        path = project / ".mini-letta" / "settings.local.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"a": ', encoding="utf-8")
    result = cli("chat", "-p", "hi")
    assert result.code == 1
    assert str(path) in result.stderr
    assert path.read_text(encoding="utf-8") == '{"a": '


def test_torn_last_line_and_garbage_middle_line(cli, project_agent, home):
    first = json.loads(cli("chat", "-p", "one", "--output-format", "json").stdout)
    cli("chat", "-p", "two")
    log = _agent_dir(home.root) / "conversations" / first["conversationId"] / "messages.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines.insert(1, b"garbage that is not json\n")
    log.write_bytes(b"".join(lines) + b'{"id": "msg-torn", "role": "us')
    result = cli("chat", "-p", "three", "--output-format", "json")
    assert result.code == 0, result.stderr
    shown = json.loads(cli("conversations", "show", first["conversationId"], "--json").stdout)
    users = [m["content"] for m in shown["messages"] if m["role"] == "user"]
    assert users == ["one", "two", "three"]
    assert log.read_bytes().endswith(b"\n")
    assert b"msg-torn" not in log.read_bytes()


def test_unwritable_home_is_a_clear_error(cli, project_agent, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("chat", "-p", "hi", env={"MINI_LETTA_HOME": str(blocker / "home")})
    assert result.code == 1
    assert "cannot" in result.stderr and str(blocker) in result.stderr


def test_home_with_a_file_where_agents_go(cli, home):
    home.root.mkdir(parents=True)
    (home.root / "agents").write_text("not a folder")
    result = cli("chat", "-p", "hi")
    assert result.code == 1
    assert "cannot write" in result.stderr and "agents" in result.stderr
