"""CPU of one reflection run, in the process and in its git children, over the gate suite.

Usage: python bench/reflection_run_cpu.py [--cases N] [--rounds R]
Runs the first N cases of `mini-letta eval gate` (real runs in a copy of one agent home: lease,
worktree, the scripted model's edits through the reflection tools, gate, merge or rejection)
one after another in this process, R rounds, and prints per run the median round's CPU of this
process and of the git processes it waited for, and the git processes started. A case's home
copy and memory seeding are counted too (about 2 ms and 2 git processes of each run here).

Loaded 2-core machine, 121 cases, 2 rounds, back to back: 729c3a3 48.8 ms in the process and
51.7 ms in git children per run, 14.7 git processes; after session 4's work on the run (its
tools' log, `git add -A -v`, the transcript's record in memory, one lstat a path segment):
41.2 ms, 41.6 ms and 11.8. Session 5, 121 cases x 2 rounds, back to back with c8535b6
(36.4 ms, 35.4 ms, 11.4): a detached worktree removed in the process, the gate's diff from
the files, one-process commits of tracked files, the transcript read from memory: 33.3 ms,
24.8 ms and 7.6.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from _common import cpu_times as _cpu  # noqa: E402

from mini_letta.reflection.evals import gate_eval  # noqa: E402
from support.git_calls import git_calls  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    cases = gate_eval.builtin_gate_suite()[: opts.cases]
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    shm = Path("/dev/shm")
    rounds: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        template = gate_eval._template(Path(tmp) / "template", environ)
        gate_eval._in_copy(template, cases[0], environ)  # imports and first-use costs
        for _ in range(opts.rounds):
            before = _cpu()
            with git_calls() as calls:
                results = [gate_eval._in_copy(template, case, environ) for case in cases]
            after = _cpu()
            assert not [r for r in results if r.status == "error"], results
            n = len(cases)
            own, children = (1000 * (a - b) / n for a, b in zip(after, before, strict=True))
            rounds.append((own, children, len(calls) / n))
    own, children, git = (statistics.median(column) for column in zip(*rounds, strict=True))
    print(f"{len(cases)} runs x {opts.rounds} rounds (median round), per run:")
    print(f"  CPU in the process  {own:6.1f} ms")
    print(f"  CPU in git children {children:6.1f} ms")
    print(f"  git processes       {git:6.1f}")


if __name__ == "__main__":
    main()
