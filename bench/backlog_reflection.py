"""Reflecting a backlog on the mock: time per message at 2,000 / 8,000 / 32,000 messages.

Usage: python bench/backlog_reflection.py [--sizes 2000,8000,32000] [--window N]
For each size a fresh agent's conversation gets that many appended mock-shaped messages, then
`reflect_backlog` reflects all of it, slice by slice (one launch each: lease, worktree, the
mock reflection agent, gate, merge). Prints slices, seconds and milliseconds per message; the
issue's bar is the per-message time at the largest size within 1.3x of the smallest's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import fill_conversation, load_line  # noqa: E402

from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.reflection.run.backlog import reflect_backlog  # noqa: E402
from mini_letta.reflection.state.watermark import backlog_messages  # noqa: E402
from mini_letta.workspace import World, new_agent, resolve_conversation  # noqa: E402


def _cpu() -> float:
    """CPU seconds of this process and its finished children (git): on a loaded machine wall
    time mostly measures the wait for a core."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(world: World, size: int, window: int) -> tuple[int, float, float]:
    agent = new_agent(world, name=f"backlog-{size}", context_window=window)
    store = resolve_conversation(world, agent, None, new=True)
    fill_conversation(store, size)
    started, cpu = time.perf_counter(), _cpu()
    result = reflect_backlog(world, agent, store)
    elapsed, cpu = time.perf_counter() - started, _cpu() - cpu
    assert result.outcome.ok and backlog_messages(store) == 0, result.outcome.message
    return result.slices, elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2000,8000,32000")
    parser.add_argument("--window", type=int, default=32_000)
    opts = parser.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp) / "project"
        cwd.mkdir()
        world = World(Home(Path(tmp) / "home"), cwd, {}, SystemClock())
        per_message, cpu_per_message = [], []
        print(f"mock reflection, window {opts.window}; {load_line(1)}")
        for size in sizes:
            slices, seconds, cpu = measure(world, size, opts.window)
            per_message.append(seconds / size * 1000)
            cpu_per_message.append(cpu / size * 1000)
            print(
                f"{size:>7,} messages: {slices:>4} slices, {seconds:7.1f} s wall "
                f"({per_message[-1]:.2f} ms/message, {seconds / slices:.2f} s/slice), "
                f"{cpu:7.1f} s CPU ({cpu_per_message[-1]:.2f} ms/message)"
            )
        print(
            f"ratio largest/smallest per message: {per_message[-1] / per_message[0]:.2f}x wall, "
            f"{cpu_per_message[-1] / cpu_per_message[0]:.2f}x CPU"
        )


if __name__ == "__main__":
    main()
