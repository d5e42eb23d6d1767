"""Cost of `mini-letta status` with a conversation of 10 and of 100,000 messages.

Usage: python bench/status_cost.py [--runs N] [--messages N]
Times (median of N) the health gathering in-process, and the whole command as a user runs it
(a `python -m mini_letta status` process: wall and CPU time), with nothing reflected yet, so
the step count has to walk back until its bound.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import (  # noqa: E402
    fill_conversation,
    load_line,
    median_ms,
    process_median_ms,
    warm_bytecode,
)

from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.reflection.history.health import gather_health  # noqa: E402
from mini_letta.reflection.state.settings import load_reflection_settings  # noqa: E402
from mini_letta.settings import remember_current  # noqa: E402
from mini_letta.workspace import World, new_agent, resolve_conversation  # noqa: E402


def _measure(root: Path, count: int, runs: int) -> tuple[float, tuple[float, float]]:
    project = root / f"project-{count}"
    project.mkdir()
    world = World(Home(root / f"home-{count}"), project, {}, SystemClock())
    agent = new_agent(world, name=f"bench-{count}")
    store = resolve_conversation(world, agent, None, new=True)
    fill_conversation(store, count)
    remember_current(project, agent.id, store.conversation_id)
    settings = load_reflection_settings(world.home, project, agent)
    core = median_ms(
        lambda: gather_health(world.home, agent, settings, world.clock, store.conversation_id),
        runs,
    )
    env = {**os.environ, "MINI_LETTA_HOME": str(world.home.root), "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "mini_letta", "status"]
    return core, process_median_ms(command, project, env, runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--messages", type=int, default=100_000)
    opts = parser.parse_args()
    warm_bytecode()
    root = Path(tempfile.mkdtemp(prefix="mini-letta-bench-status-"))
    print(load_line(opts.runs))
    for count in (10, opts.messages):
        core, (wall, cpu) = _measure(root, count, opts.runs)
        print(
            f"{count:>7,} messages: gather {core:6.1f} ms; "
            f"`mini-letta status` {wall:6.1f} ms (CPU {cpu:6.1f} ms)"
        )


if __name__ == "__main__":
    main()
