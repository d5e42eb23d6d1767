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
