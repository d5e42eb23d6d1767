"""Wall time of a mock headless turn (process start included), fresh vs 100,000 messages.

Usage: python bench/turn_cost.py [--runs N] [--messages N]
Prints the median of N runs for `--version`, a turn in a fresh conversation, a turn in a
conversation whose log already holds the given number of messages, and the detached reflection
worker after a turn (the process a background reflection starts: mock model, git included):
wall time, and the CPU time (user + system) of the process and its children, which a busy
shared machine disturbs far less.
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

from _common import (  # noqa: E402
    fill_conversation,
    interleaved_median_ms,
    load_line,
    process_median_ms,
    warm_bytecode,
)

from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.home import Home  # noqa: E402


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC)}


def _time(args: list[str], home: Path, cwd: Path, runs: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of `python -m mini_letta ARGS`."""
    return process_median_ms([sys.executable, "-m", "mini_letta", *args], cwd, _env(home), runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--messages", type=int, default=100_000)
    opts = parser.parse_args()
    warm_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        cwd.mkdir()
        version = _time(["--version"], home, cwd, opts.runs)
        first = subprocess.run(
            [sys.executable, "-m", "mini_letta", "chat", "-p", "hi", "--output-format", "json"],
            cwd=cwd,
            env=_env(home),
            check=True,
            capture_output=True,
            text=True,
        )
        info = json.loads(first.stdout)
        big = subprocess.run(
            [
                sys.executable,
                "-m",
                "mini_letta",
                "chat",
                "-p",
                "hi",
                "--new",
                "--output-format",
                "json",
            ],
            cwd=cwd,
            env=_env(home),
            check=True,
            capture_output=True,
            text=True,
        )
        big_id = json.loads(big.stdout)["conversationId"]
        store = ConversationStore(info["agentId"], big_id, Home(home))
        started = time.perf_counter()
        fill_conversation(store, opts.messages)
        fill_s = time.perf_counter() - started
        # One fresh turn, then one large, and so on: a change in the machine's load over the
        # runs weighs on both alike, so the ratio compares like with like.
        turn = [sys.executable, "-m", "mini_letta", "chat", "-p", "你好", "--conversation"]
        fresh, large = interleaved_median_ms(
            [[*turn, info["conversationId"]], [*turn, big_id]], cwd, _env(home), opts.runs
        )
        size_mb = store.log.path.stat().st_size / 1e6
        # a turn in a third conversation, then the worker that reflects on it (each round)
        said = [*turn[:-3], "-p", "我更喜欢用 tabs 缩进", "--new", "--output-format", "json"]
        third = json.loads(
            subprocess.run(
                said, cwd=cwd, env=_env(home), check=True, capture_output=True, text=True
            ).stdout
        )["conversationId"]
        ids = ["--agent", info["agentId"], "--conversation", third]
        worker = [
            sys.executable,
            "-m",
            "mini_letta",
            "_reflect-worker",
            *ids,
            "--trigger",
            "manual",
        ]
        _, reflected = interleaved_median_ms([[*turn, third], worker], cwd, _env(home), opts.runs)
    print(load_line(opts.runs))
    print(
        f"mini-letta --version            median {version[0]:7.1f} ms  (CPU {version[1]:6.1f} ms)"
    )
    print(f"mock turn, fresh conversation   median {fresh[0]:7.1f} ms  (CPU {fresh[1]:6.1f} ms)")
    print(
        f"mock turn, {opts.messages:,} messages    median {large[0]:7.1f} ms  "
        f"(CPU {large[1]:6.1f} ms; log {size_mb:.1f} MB, filled in {fill_s:.1f} s)"
    )
    print(
        f"ratio large/fresh               {large[0] / fresh[0]:7.2f}  "
        f"(CPU {large[1] / fresh[1]:.2f})"
    )
    print(
        f"reflection worker after a turn  median {reflected[0]:7.1f} ms  "
        f"(CPU {reflected[1]:6.1f} ms, git included)"
    )


if __name__ == "__main__":
    main()
