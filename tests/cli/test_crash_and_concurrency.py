"""Killed and concurrent writers: nothing acknowledged is lost, every file stays readable."""

from __future__ import annotations

import json
import random

from support.crash import kill_after, spawn_turn_loop


def _messages(cli, conversation_id: str) -> list[dict]:
    shown = cli("conversations", "show", conversation_id, "--json", "-n", "100000")
    assert shown.code == 0, shown.stderr
    return json.loads(shown.stdout)["messages"]


def test_sigkill_during_turns_loses_nothing_acknowledged(cli, home, project):
    first = json.loads(cli("chat", "-p", "start", "--output-format", "json").stdout)
    conv = first["conversationId"]
    rng = random.Random(1234)
    acknowledged: list[str] = []
    for round_no in range(6):
        child = spawn_turn_loop(home.root, project, f"r{round_no}", 1000)
        acknowledged += kill_after(child, rng.randint(0, 2), rng)
    users = [m["content"] for m in _messages(cli, conv) if m["role"] == "user"]
    for text in acknowledged:
        assert text in users
    assert len(users) == len(set(users))
    after = cli("chat", "-p", "after the crashes", "--output-format", "json")
    assert after.code == 0, after.stderr
    assert json.loads(after.stdout)["conversationId"] == conv


def test_four_processes_in_one_conversation_serialise(cli, home, project):
    conv = json.loads(cli("chat", "-p", "seed", "--output-format", "json").stdout)["conversationId"]
    children = [
        spawn_turn_loop(home.root, project, f"p{n}", 8, "--conversation", conv) for n in range(3)
    ]
    for child in children:
        _, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
    messages = _messages(cli, conv)[2:]  # after the seed turn
    assert len(messages) == 48
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert sorted(users) == sorted(f"p{n}-{i}" for n in range(3) for i in range(8))
    # Turns serialise: every user message is followed by its own answer.
    for user, answer in zip(messages[::2], messages[1::2], strict=True):
        assert user["role"] == "user"
        assert answer["content"] == "（mock）我听到了：" + user["content"]
