"""SIGKILL a process that compacts every few turns: the conversation still reads and continues."""

from __future__ import annotations

import json
import random

from mini_letta.context.builder import load_context_view
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.storage.atomic import load_json
from support.crash import TurnLoops

WINDOW = "900"  # compacts every few turns (the memory prompt and tool take ~530 tokens)
TEXT = "今天的工作记录：我们讨论了部署和测试的安排"


def _check_readable(store: ConversationStore) -> None:
    store.load_record()
    load_json(store.files.compaction_flag)  # a torn event file would raise CorruptFileError
    view = load_context_view(store, 100_000)
    body = [m for m in view.messages if m.role != "summary"]
    assert body and body[0].role == "user"
    assert [m.role for m in view.messages].count("summary") <= 1


def test_sigkill_during_compacting_turns(cli, home, project, tmp_path):
    cli("sleeptime", "--trigger", "off")  # every kill lands in a turn or a compaction
    first = cli("chat", "-p", "开始", "--context-window", WINDOW, "--output-format", "json")
    data = json.loads(first.stdout)
    store = ConversationStore(data["agentId"], data["conversationId"], Home(home.root))
    rng = random.Random(5)
    acknowledged: list[str] = []
    with TurnLoops(home.root, project, tmp_path) as loops:
        for round_no in range(5):
            loops.start(f"r{round_no}", 1000, "--context-window", WINDOW, text=TEXT)
            acknowledged += loops.kill_after(f"r{round_no}", rng.randint(2, 3), rng)
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
