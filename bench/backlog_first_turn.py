"""The first `chat -p` after 100,000 unreflected messages: the turn is not held by the backlog.

Usage: python bench/backlog_first_turn.py [--messages N] [--runs N] [--trigger T]
Times (median of N, whole process) a mock `chat -p` in a conversation of a few messages, then
appends N mock-shaped messages to it and times the next `chat -p` once (the one that finds the
backlog: its compaction and its triggered reflection run in it), and one reflected slice alone
(`reflect` on a fresh copy is not needed: the run record of that turn's reflection gives its
duration). The issue's bar: that turn within 2x a normal turn plus one slice.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import fill_conversation, load_line, process_median_ms, warm_bytecode  # noqa: E402

from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.reflection.records import list_run_records  # noqa: E402


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC)}


def _cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mini_letta", *args]
    return subprocess.run(
        command, cwd=cwd, env=_env(home), check=True, capture_output=True, text=True
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--trigger", default="compaction-event")
    opts = parser.parse_args()
    warm_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        cwd.mkdir()
        if opts.trigger != "compaction-event":
            _cli(home, cwd, "sleeptime", "--trigger", opts.trigger, "--steps", "25")
        created = _cli(home, cwd, "chat", "-p", "hi", "--output-format", "json")
        ids = json.loads(created.stdout)
        agent_id, conversation_id = ids["agentId"], ids["conversationId"]
        turn = [sys.executable, "-m", "mini_letta", "chat", "-p", "hello again"]
        normal, _ = process_median_ms(turn, cwd, _env(home), opts.runs)
        store = ConversationStore(agent_id, conversation_id, Home(home))
        fill_conversation(store, opts.messages)
        started = time.perf_counter()
        first = _cli(home, cwd, "chat", "-p", "and now?")
        backlog_turn = (time.perf_counter() - started) * 1000
        runs = list_run_records(Home(home), agent_id)
        slice_ms = max((r.duration_ms or 0 for r in runs), default=0)
        print(f"{load_line(opts.runs)}; trigger {opts.trigger}")
        print(f"normal turn: {normal:.0f} ms")
        print(f"first turn after {opts.messages:,} appended messages: {backlog_turn:.0f} ms")
        print(f"reflection runs in that turn: {len(runs)}, the slice took {slice_ms} ms")
        print(f"bar (2x normal + one slice): {2 * normal + slice_ms:.0f} ms")
        print("stderr of that turn:", first.stderr.strip()[:400] or "(empty)")


if __name__ == "__main__":
    main()
