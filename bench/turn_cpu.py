"""CPU of a mock turn and of a few in-process commands, in this process and in its git children.

Usage: python bench/turn_cpu.py [--turns N] [--rounds R]
Runs the CLI's `main()` in this process, as the in-process tests do (its own streams,
environment and folder), on one agent home: N `chat -p` turns (mock model; a new conversation
every tenth turn, so the conversations stay the size most are), and N each of `status`,
`memory tree` and `conversations list`. Prints, per command, the median round's CPU of this
process and of the git processes it waited for, and git processes started. Imports and
first-use costs are paid before timing.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from _common import cpu_times as _cpu  # noqa: E402

from mini_letta.cli.main import main as cli_main  # noqa: E402
from mini_letta.cli.terminal import Terminal  # noqa: E402
from support.git_calls import git_calls  # noqa: E402


def _runner(home: Path, cwd: Path) -> Callable[..., str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home.parent),
        "MINI_LETTA_HOME": str(home),
        "LANG": "C.UTF-8",
    }

    def run(*args: str) -> str:
        out, err = io.StringIO(), io.StringIO()
        code = cli_main(list(args), Terminal(io.StringIO(""), out, err, env, cwd))
        if code != 0:
            raise SystemExit(f"{args}: exit {code}: {err.getvalue()}")
        return out.getvalue()

    return run


def _measure(action: Callable[[int], object], n: int) -> tuple[float, float, float]:
    before = _cpu()
    with git_calls() as calls:
        for index in range(n):
            action(index)
    after = _cpu()
    own, children = (1000 * (a - b) / n for a, b in zip(after, before, strict=True))
    return own, children, len(calls) / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        cwd.mkdir()
        run = _runner(home, cwd)
        run("chat", "-p", "hello", "--output-format", "json")

        def turn(index: int) -> object:
            said = "我更喜欢用 tabs 缩进" if index % 4 == 0 else f"what is {index} plus one?"
            return run("chat", "-p", said, "--new" if index % 10 == 0 else "--continue")

        commands: dict[str, Callable[[int], object]] = {
            "mock turn (chat -p --continue)": turn,
            "status": lambda _: run("status"),
            "memory tree": lambda _: run("memory", "tree"),
            "conversations list": lambda _: run("conversations", "list"),
        }
        figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        for action in commands.values():  # first use: imports, caches
            action(0)
        for _ in range(opts.rounds):
            for name, action in commands.items():
                figures[name].append(_measure(action, opts.turns))
    print(f"{opts.turns} runs x {opts.rounds} rounds (median round), per run:")
    for name, rows in figures.items():
        own, children, git = (statistics.median(column) for column in zip(*rows, strict=True))
        print(f"  {name:32} CPU {own:6.1f} ms in the process, {children:6.1f} ms in git", end="")
        print(f" ({git:.1f} processes)")


if __name__ == "__main__":
    main()
