"""A corrupt conversation.json or compaction-event.json: nothing appended, and a repair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.compaction_fakes import CHINESE_TURNS

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _conversation(cli, home) -> tuple[str, Path]:
    conversation = json.loads(cli("conversations", "list", "--json").stdout)[0]["id"]
    (agent_dir,) = (home.root / "agents").iterdir()
    return conversation, agent_dir / "conversations" / conversation


def _lines(folder: Path) -> int:
    return len((folder / "messages.jsonl").read_bytes().splitlines())


def test_a_corrupt_conversation_json_fails_the_turn_before_anything_is_appended(cli, home):
    cli("chat", "-p", "hello")
    conversation, folder = _conversation(cli, home)
    (folder / "conversation.json").write_text("{torn")
    for _ in range(2):
        result = cli("chat", "-p", "again")
        assert result.code == 1 and result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert "conversation.json is corrupt" in line
        assert f"mini-letta conversations repair {conversation}" in line
    assert _lines(folder) == 2


def test_repair_rebuilds_conversation_json_from_the_log_and_keeps_the_corrupt_copy(cli, home):
    for text in CHINESE_TURNS[:5]:
        cli("chat", "-p", text)
    assert cli("compact").code == 0
    conversation, folder = _conversation(cli, home)
    good = json.loads((folder / "conversation.json").read_text())
    (folder / "conversation.json").write_text('{"id": 5}')
    result = cli("conversations", "repair", conversation)
    assert result.code == 0, result.stderr
    assert "conversation.json" in result.stdout and ".corrupt-" in result.stdout
    rebuilt = json.loads((folder / "conversation.json").read_text())
    for key in ("id", "agentId", "title", "context"):
        assert rebuilt[key] == good[key], key
    assert rebuilt["createdAt"] >= good["createdAt"]  # the first message's time
    (kept,) = folder.glob("conversation.json.corrupt-*")
    assert kept.read_text() == '{"id": 5}'
    assert cli("chat", "-p", "继续").code == 0
    assert cli("conversations", "repair", conversation).stdout.startswith("Nothing to repair")


def test_a_corrupt_compaction_flag_is_rebuilt_once_with_a_warning(cli, home):
    for text in CHINESE_TURNS[:5]:
        cli("chat", "-p", text)
    assert cli("compact").code == 0
    _, folder = _conversation(cli, home)
    event = folder / "compaction-event.json"
    summary_id = json.loads(event.read_text())["summaryMessageId"]
    event.write_text("{torn")
    first = cli("chat", "-p", "继续")
    assert first.code == 0, first.stderr
    assert "compaction-event.json" in first.stderr and ".corrupt-" in first.stderr
    assert json.loads(event.read_text())["summaryMessageId"] == summary_id
    assert len(list(folder.glob("compaction-event.json.corrupt-*"))) == 1
    second = cli("chat", "-p", "再来")
    assert second.code == 0 and "compaction-event" not in second.stderr


def test_repair_of_an_unknown_conversation_is_a_clear_error(cli):
    cli("chat", "-p", "hello")
    result = cli("conversations", "repair", "conv-nope")
    assert result.code == 1 and "not found" in result.stderr
