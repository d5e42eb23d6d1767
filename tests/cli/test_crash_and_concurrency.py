"""Killed and concurrent writers: nothing acknowledged is lost, every file stays readable."""

from __future__ import annotations

import json
import random

from support.crash import TurnLoops


def _messages(cli, conversation_id: str) -> list[dict]:
    shown = cli("conversations", "show", conversation_id, "--json", "-n", "100000")
    assert shown.code == 0, shown.stderr
    return json.loads(shown.stdout)["messages"]


def test_sigkill_during_turns_loses_nothing_acknowledged(cli, home, project, tmp_path):
    first = json.loads(cli("chat", "-p", "start", "--output-format", "json").stdout)
    conv = first["conversationId"]
    rng = random.Random(1234)
    acknowledged: list[str] = []
    with TurnLoops(home.root, project, tmp_path) as loops:
        for round_no in range(6):
            loops.start(f"r{round_no}", 1000)
            acknowledged += loops.kill_after(f"r{round_no}", rng.randint(0, 2), rng)
    users = [m["content"] for m in _messages(cli, conv) if m["role"] == "user"]
    for text in acknowledged:
        assert text in users
    assert len(users) == len(set(users))
    after = cli("chat", "-p", "after the crashes", "--output-format", "json")
    assert after.code == 0, after.stderr
    assert json.loads(after.stdout)["conversationId"] == conv


def test_four_processes_in_one_conversation_serialise(cli, home, project, tmp_path):
    conv = json.loads(cli("chat", "-p", "seed", "--output-format", "json").stdout)["conversationId"]
    with TurnLoops(home.root, project, tmp_path) as loops:
        for n in range(3):  # all three running before any has finished its turns
            loops.start(f"p{n}", 8, "--conversation", conv)
        assert [loops.wait(f"p{n}") for n in range(3)] == [0, 0, 0], loops.errors.read_text()
    messages = _messages(cli, conv)[2:]  # after the seed turn
    assert len(messages) == 48
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert sorted(users) == sorted(f"p{n}-{i}" for n in range(3) for i in range(8))
    # Turns serialise: every user message is followed by its own answer.
    for user, answer in zip(messages[::2], messages[1::2], strict=True):
        assert user["role"] == "user"
        assert answer["content"] == "（mock）我听到了：" + user["content"]
