"""What an editor waits for from `mini-letta acp`: start-up to `initialize`, `session/new`, and
a mock turn over the protocol, driven by the official SDK's client over real stdio.

Usage: python bench/acp_turn.py [--runs N] [--turns N]
Prints medians over N processes: wall milliseconds from spawning the process to the answer of
`initialize`, for `session/new` (an agent is created by the first run), and for a mock prompt
(median of the turns of each run), then the agent process's CPU time (user + system) per
run, which a busy shared machine disturbs far less than wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"


class _Quiet:
    """A client that takes the updates and answers no question."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None


async def _one_run(home: Path, project: Path, turns: int) -> tuple[float, float, list[float]]:
    from acp import PROTOCOL_VERSION, spawn_agent_process, text_block

    env = {"MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC), "PATH": os.environ["PATH"]}
    command = (sys.executable, "-m", "mini_letta", "acp", "--model", "mock")
    started = time.perf_counter()
    async with spawn_agent_process(_Quiet(), *command, env=env, cwd=project) as (conn, proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        ready = time.perf_counter()
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        opened = time.perf_counter()
        times = []
        for index in range(turns):
            before = time.perf_counter()
            await conn.prompt(session_id=session.session_id, prompt=[text_block(f"hi {index}")])
            times.append((time.perf_counter() - before) * 1000)
        proc.stdin.close()
        await proc.wait()
    return (ready - started) * 1000, (opened - ready) * 1000, times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        starts, opens, turns, cpu = [], [], [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start, opened, times = asyncio.run(_one_run(home, project, args.turns))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            starts.append(start)
            opens.append(opened)
            turns.append(statistics.median(times))
            cpu.append(used * 1000)
    print(f"acp start-up to initialize: {statistics.median(starts):8.1f} ms wall (median)")
    print(f"session/new:                {statistics.median(opens):8.1f} ms wall")
    print(f"a mock prompt:              {statistics.median(turns):8.1f} ms wall")
    print(f"agent process CPU per run:  {statistics.median(cpu):8.1f} ms (user + system, "
          f"{args.turns} turns)")  # fmt: skip


if __name__ == "__main__":
    main()
