"""SIGKILL a process that compacts every few turns: the conversation still reads and continues."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from mini_letta.context.builder import load_context_view
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.storage.atomic import load_json
from support.cli import cli_env

WINDOW = "900"  # compacts every few turns (the memory prompt and tool take ~530 tokens)
TURN_LOOP = """
import sys
from mini_letta.cli.main import main
prefix, window = sys.argv[1], sys.argv[2]
for i in range(100000):
    text = f"{prefix}-{i} 今天的工作记录：我们讨论了部署和测试的安排"
    if main(["chat", "-p", text, "--context-window", window]):
        sys.exit(1)
    print(f"ACK {prefix}-{i}", file=sys.stderr, flush=True)
"""


def _spawn(home: Path, cwd: Path, prefix: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", TURN_LOOP, prefix, WINDOW],
        cwd=cwd,
        env=cli_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _check_readable(store: ConversationStore) -> None:
    store.load_record()
    load_json(store.files.compaction_flag)  # a torn event file would raise CorruptFileError
    view = load_context_view(store, 100_000)
    body = [m for m in view.messages if m.role != "summary"]
    assert body and body[0].role == "user"
    assert [m.role for m in view.messages].count("summary") <= 1


def test_sigkill_during_compacting_turns(cli, home, project):
    first = cli("chat", "-p", "开始", "--context-window", WINDOW, "--output-format", "json")
    data = json.loads(first.stdout)
    store = ConversationStore(data["agentId"], data["conversationId"], Home(home.root))
    rng = random.Random(5)
    acknowledged: list[str] = []
    for round_no in range(12):
        child = _spawn(home.root, project, f"r{round_no}")
        time.sleep(rng.uniform(0.2, 0.6))
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate()
        acknowledged += [line.split()[1] for line in err.splitlines() if line.startswith("ACK ")]
        _check_readable(store)
    users = [m.content.split()[0] for m in store.all() if m.role == "user"]
    assert set(acknowledged) <= set(users)
    assert len(users) == len(set(users))
    assert any(m.role == "summary" for m in store.all())
    after = cli("chat", "-p", "崩溃之后继续", "--context-window", WINDOW, "--output-format", "json")
    assert after.code == 0, after.stderr
    assert json.loads(after.stdout)["result"] == "（mock）我听到了：崩溃之后继续"
    view = load_context_view(store, 100_000)
    assert view.summary is not None
    assert store.load_record().context.summary_message_id == view.summary.id
    event = load_json(store.files.compaction_flag)
    assert event is not None and event["summaryMessageId"] == view.summary.id
