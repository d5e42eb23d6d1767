"""Killed and concurrent writers: nothing acknowledged is lost, every file stays readable."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.cli import cli_env

TURN_LOOP = """
import sys
from mini_letta.cli.main import main
prefix, count = sys.argv[1], int(sys.argv[2])
extra = sys.argv[3:]
for i in range(count):
    code = main(["chat", "-p", f"{prefix}-{i}", *extra])
    if code:
        sys.exit(code)
    print(f"ACK {prefix}-{i}", file=sys.stderr, flush=True)
"""


def _spawn(home: Path, cwd: Path, prefix: str, count: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", TURN_LOOP, prefix, str(count), *extra],
        cwd=cwd,
        env=cli_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _messages(cli, conversation_id: str) -> list[dict]:
    shown = cli("conversations", "show", conversation_id, "--json", "-n", "100000")
    assert shown.code == 0, shown.stderr
    return json.loads(shown.stdout)["messages"]


def test_sigkill_during_turns_loses_nothing_acknowledged(cli, home, project):
    first = json.loads(cli("chat", "-p", "start", "--output-format", "json").stdout)
    conv = first["conversationId"]
    rng = random.Random(1234)
    acknowledged: list[str] = []
    for round_no in range(20):
        child = _spawn(home.root, project, f"r{round_no}", 1000)
        time.sleep(rng.uniform(0.15, 0.6))
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate()
        acknowledged += [line.split()[1] for line in err.splitlines() if line.startswith("ACK ")]
    users = [m["content"] for m in _messages(cli, conv) if m["role"] == "user"]
    for text in acknowledged:
        assert text in users
    assert len(users) == len(set(users))
    after = cli("chat", "-p", "after the crashes", "--output-format", "json")
    assert after.code == 0, after.stderr
    assert json.loads(after.stdout)["conversationId"] == conv


def test_four_processes_in_one_conversation_serialise(cli, home, project):
    conv = json.loads(cli("chat", "-p", "seed", "--output-format", "json").stdout)["conversationId"]
    children = [_spawn(home.root, project, f"p{n}", 25, "--conversation", conv) for n in range(4)]
    for child in children:
        _, err = child.communicate(timeout=240)
        assert child.returncode == 0, err
    messages = _messages(cli, conv)[2:]  # after the seed turn
    assert len(messages) == 200
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert sorted(users) == sorted(f"p{n}-{i}" for n in range(4) for i in range(25))
    # Turns serialise: every user message is followed by its own answer.
    for user, answer in zip(messages[::2], messages[1::2], strict=True):
        assert user["role"] == "user"
        assert answer["content"] == "（mock）我听到了：" + user["content"]
