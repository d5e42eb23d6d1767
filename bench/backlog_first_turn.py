"""The first `chat -p` after 100,000 unreflected messages: the turn is not held by the backlog.

Usage: python bench/backlog_first_turn.py [--messages N] [--runs N] [--trigger T]
With step-count 25: times (median of N, whole process) a mock `chat -p` that reflects nothing,
once a `chat -p` whose reflection takes one slice (60 appended messages; the slice's cost is
the difference), and once the first `chat -p` after N appended messages (its compaction and its
triggered reflection run in it). The issue's bar: that turn within 2x a normal turn plus one
slice.
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


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC)}


def _cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mini_letta", *args]
    return subprocess.run(
        command, cwd=cwd, env=_env(home), check=True, capture_output=True, text=True
    )


def _timed_turn(home: Path, cwd: Path, text: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = _cli(home, cwd, "chat", "-p", text)
    return (time.perf_counter() - started) * 1000, done.stderr.strip()


def _conversation(home: Path, cwd: Path, appended: int) -> None:
    """A conversation of this project (its first turn), then `appended` mock-shaped messages."""
    cwd.mkdir()
    made = _cli(home, cwd, "chat", "-p", "hi", "--output-format", "json")
    ids = json.loads(made.stdout)
    fill_conversation(
        ConversationStore(ids["agentId"], ids["conversationId"], Home(home)), appended
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    warm_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        plain, one, backlog = (Path(tmp) / name for name in ("plain", "one", "backlog"))
        (Path(tmp) / "setup").mkdir()
        setup = ["sleeptime", "--global", "--trigger", "step-count", "--steps", "25"]
        _cli(home, Path(tmp) / "setup", *setup)
        _conversation(home, plain, 0)
        turn = [sys.executable, "-m", "mini_letta", "chat", "-p", "hello again"]
        normal, _ = process_median_ms(turn, plain, _env(home), opts.runs)
        _conversation(home, one, 60)  # 30 steps: the next turn reflects them, one slice
        with_slice, _ = _timed_turn(home, one, "and now?")
        _conversation(home, backlog, opts.messages)
        backlog_turn, said = _timed_turn(home, backlog, "and now?")
        slice_ms = with_slice - normal
        print(f"{load_line(opts.runs)}; step-count 25")
        print(f"normal turn: {normal:.0f} ms")
        print(f"a turn that reflects one slice (60 messages): {with_slice:.0f} ms")
        print(f"first turn after {opts.messages:,} appended messages: {backlog_turn:.0f} ms")
        print(f"bar (2x normal + one slice): {2 * normal + slice_ms:.0f} ms")
        print("that turn said:", said[:400] or "(nothing)")


if __name__ == "__main__":
    main()
