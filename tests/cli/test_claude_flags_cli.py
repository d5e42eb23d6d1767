"""The flags a Claude Code user types: `mini-letta -p TEXT`, `-c/--continue`, `-r/--resume ID`."""

from __future__ import annotations

import json

import pytest

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _json(result) -> dict[str, object]:
    assert result.code == 0, result.stderr
    return dict(json.loads(result.stdout))


def test_top_level_p_is_a_chat_turn(cli):
    result = cli("-p", "帮我看下这个报错")
    assert (result.code, result.stdout) == (0, "（mock）我听到了：帮我看下这个报错\n")
    data = _json(cli("--print", "again", "--output-format", "json"))
    assert data["result"] == "（mock）我听到了：again"


def test_resume_continues_the_named_conversation_and_continue_the_last(cli):
    first = _json(cli("-p", "one", "--output-format", "json"))["conversationId"]
    second = _json(cli("-p", "two", "--new", "--output-format", "json"))["conversationId"]
    assert first != second
    resumed = _json(cli("-p", "back", "-r", str(first), "--output-format", "json"))
    assert resumed["conversationId"] == first
    long_form = _json(cli("chat", "-p", "x", "--resume", str(first), "--output-format", "json"))
    assert long_form["conversationId"] == first
    last = _json(cli("-c", "-p", "and on", "--output-format", "json"))  # -r made first current
    assert last["conversationId"] == first


def test_continue_excludes_new_in_one_line(cli):
    result = cli("-c", "-p", "x", "--new")
    assert result.code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "-c/--continue" in result.stderr
    assert cli("-r", "conv-nope", "-p", "x").code == 1


def test_json_carries_the_fields_claude_p_scripts_read(cli, project):
    data = _json(cli("-p", "hi", "--output-format", "json"))
    assert (data["type"], data["subtype"], data["is_error"]) == ("result", "success", False)
    assert data["session_id"] == data["conversationId"]
    assert data["num_turns"] == data["steps"] == 1
    assert data["duration_ms"] == data["durationMs"] and "usage" in data
    assert data["result"] == "（mock）我听到了：hi"


def test_stream_json_starts_with_claudes_init_event(cli, project):
    result = cli("-p", "hi", "--output-format", "stream-json")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    first, last = events[0], events[-1]
    assert (first["type"], first["subtype"]) == ("system", "init")
    assert first["session_id"] == first["conversationId"] == last["session_id"]
    assert first["cwd"] == str(project) and first["tools"] == ["memory"]
    assert first["model"] == "mock" and last["subtype"] == "success"


def test_a_failed_turn_is_an_error_result(cli, project):
    (project / "s.json").write_text('[{"error": "auth", "message": "bad key"}]')
    result = cli("-p", "hi", "--model", "script:s.json", "--output-format", "json")
    data = json.loads(result.stdout)
    assert result.code == 1
    assert (data["subtype"], data["is_error"]) == ("error_during_execution", True)


def _one_line(result, code: int = 2) -> str:
    assert result.code == code and len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr


def test_resume_without_an_id_needs_a_terminal_as_claude_p_does(cli):
    assert "-r/--resume without an ID" in _one_line(cli("-p", "x", "-r"))
    assert "-r/--resume without an ID" in _one_line(cli("-r", "-p", "x", "--output-format", "json"))
    assert "needs a terminal" in _one_line(cli("-r", stdin="hello\n"))  # piped: no picker
    both = cli("-p", "x", "-r", "conv-a", "--conversation", "conv-b")
    assert "give one" in _one_line(both)


def test_leading_options_with_p_anywhere_are_a_chat_turn(cli):
    result = cli("--model", "mock", "--new", "-p", "hi", "--output-format", "json")
    assert _json(result)["result"] == "（mock）我听到了：hi"
    short = cli("-m", "mock", "-p", "again", "--output-format", "json")
    assert _json(short)["result"] == "（mock）我听到了：again"


def test_session_flags_before_a_command_are_refused_in_one_line(cli):
    assert "interactive session's" in _one_line(cli("--agent", "a", "status"))
    assert "-c/--continue" in _one_line(cli("-c", "--new", stdin=""))


def test_the_session_takes_agent_new_model_and_resume(cli):
    assert cli("agents", "create", "--name", "alpha").code == 0
    assert cli("agents", "create", "--name", "beta").code == 0
    first = _json(cli("-p", "one", "--agent", "alpha", "--output-format", "json"))
    session = cli("--agent", "beta", "-m", "qwen2.5-coder:7b", stdin="/model\n/agent\n/exit\n")
    assert session.code == 0, session.stderr
    assert "model: ollama/qwen2.5-coder:7b (the agent's: mock)" in session.stdout
    assert "agent: beta" in session.stdout
    fresh = cli("--agent", "alpha", "--new", stdin="two\n/exit\n")
    assert fresh.code == 0 and "我听到了：two" in fresh.stdout
    listed = json.loads(cli("conversations", "list", "--agent", "alpha", "--json").stdout)
    assert len(listed) == 2
    back = cli("--agent", "alpha", "-r", str(first["conversationId"]), stdin="three\n/exit\n")
    assert back.code == 0, back.stderr
    shown = cli("conversations", "show", str(first["conversationId"]), "--agent", "alpha", "--json")
    assert json.loads(shown.stdout)["messageCount"] == 4
