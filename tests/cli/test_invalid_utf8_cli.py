"""Bytes that are not UTF-8 (argv, files, file names) are accepted with U+FFFD and stored as
valid UTF-8 JSON; never an internal error. (Standard input: test_dead_stdout_contract.py.)"""

from __future__ import annotations

import json

import pytest

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _log_records(home) -> list[dict]:
    (log,) = home.agents_dir.glob("*/conversations/*/messages.jsonl")
    text = log.read_bytes().decode("utf-8")  # strict: the log is valid UTF-8
    return [json.loads(line) for line in text.splitlines()]


def test_an_argv_prompt_with_a_bad_byte_is_kept_with_a_replacement(cli, home):
    result = cli("chat", "-p", "ab\udcffcd")  # what Python makes of argv byte 0xff
    assert result.code == 0, result.stderr
    assert "not valid UTF-8" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == "（mock）我听到了：ab\ufffdcd\n"
    user = _log_records(home)[0]
    assert user["role"] == "user" and user["content"] == "ab\ufffdcd"
    listing = cli("conversations", "list", "--json")
    assert json.loads(listing.stdout)[0]["title"] == "ab\ufffdcd"


def test_reading_a_non_utf8_file_and_listing_a_non_utf8_name(cli, home, project):
    (project / "latin1.txt").write_bytes(b"caf\xe9 au lait\n")
    (project / b"n\xffme.txt".decode("utf-8", "surrogateescape")).write_bytes(b"x\n")
    script = [
        {"toolCalls": [{"name": "Read", "arguments": {"path": "latin1.txt"}}]},
        {"toolCalls": [{"name": "Glob", "arguments": {"pattern": "*.txt"}}]},
        "done",
    ]
    (project / "s.json").write_text(json.dumps(script))
    result = cli("chat", "-p", "look", "--model", "script:s.json", "--tools", "Read,Glob")
    assert result.code == 0, result.stderr
    tools = [record["content"] for record in _log_records(home) if record["role"] == "tool"]
    assert "caf\ufffd au lait" in tools[0]
    assert "n\ufffdme.txt" in tools[1] and "latin1.txt" in tools[1]
