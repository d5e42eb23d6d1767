"""The flags a Claude Code user types: `mini-letta -p TEXT`, `-c/--continue`, `-r/--resume ID`."""

from __future__ import annotations

import json


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
