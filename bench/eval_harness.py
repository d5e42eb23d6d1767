"""What the eval harness itself costs per case, beside the reflection run it measures.

Usage: python bench/eval_harness.py [--suite gate|reflection|both] [--scratch DIR]
Runs the built-in suite's cases one after another (one thread, so the CPU of each phase is
its own) and prints, per phase, the process's own CPU, its git children's CPU and the git
processes started: `copy` (the case's home from the template), `setup` (the gate case's
memory commit and conversation), `run` (the reflection; for the reflection suite also its
conversations and checks), `remove` (the case's home deleted). Then the suite's figures, which
a cheaper harness must leave as they were.

Measured on the gate suite (121 cases, tmpfs, 2 cores under load ~10), before -> after this
harness work: copy 0.41 -> 0.15-0.18 s (the template read once and replayed instead of
shutil.copytree per case), setup 0.72 -> 0.59 s and 118 -> 67 git processes (one
`git commit -- paths` where every seeded file is tracked), remove 0.17-0.24 s; the runs
themselves about 10 s (4.5-4.9 s own, 5.1-5.6 s git), which the harness does not touch.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mini_letta.reflection.evals import evaluation, gate_eval  # noqa: E402
from mini_letta.reflection.evals.eval_cases import builtin_suite  # noqa: E402
from mini_letta.reflection.evals.evaluation import ScriptClock  # noqa: E402
from mini_letta.reflection.evals.homes import AgentTemplate, copied_home  # noqa: E402
from mini_letta.workspace import World  # noqa: E402

PHASES = ("copy", "setup", "run", "remove")


class Meter:
    """CPU (own, git children) and git processes, summed per phase."""

    def __init__(self) -> None:
        self.cpu: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0])
        self.git: collections.Counter[str] = collections.Counter()
        self.phase = ""
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[object, ...]) -> None:
        if event == "subprocess.Popen" and self.phase:
            argv = args[1]
            if isinstance(argv, list | tuple) and argv and Path(str(argv[0])).name == "git":
                self.git[self.phase] += 1

    @contextmanager
    def measure(self, phase: str) -> Iterator[None]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.phase = phase
        try:
            yield
        finally:
            self.phase = ""
            own2 = resource.getrusage(resource.RUSAGE_SELF)
            kids2 = resource.getrusage(resource.RUSAGE_CHILDREN)
            self.cpu[phase][0] += own2.ru_utime + own2.ru_stime - own.ru_utime - own.ru_stime
            self.cpu[phase][1] += kids2.ru_utime + kids2.ru_stime - kids.ru_utime - kids.ru_stime

    def report(self, title: str, cases: int) -> None:
        print(f"{title}: {cases} cases")
        print(f"  {'phase':8} {'own s':>7} {'git s':>7} {'git':>6} {'ms/case':>8}")
        for phase in PHASES:
            own, kids = (max(0.0, seconds) for seconds in self.cpu[phase])
            per_case = (own + kids) / max(1, cases) * 1000
            print(f"  {phase:8} {own:7.2f} {kids:7.2f} {self.git[phase]:6d} {per_case:8.1f}")


@contextmanager
def case_home(
    meter: Meter, template: AgentTemplate, environ: dict[str, str], clock: ScriptClock
) -> Iterator[World]:
    """The case's copy of the template, its making and removal measured apart."""
    with meter.measure("copy"):
        home = copied_home(template, environ, clock)
        world = home.__enter__()
    try:
        yield world
    finally:
        with meter.measure("remove"):
            home.__exit__(None, None, None)


def gate(environ: dict[str, str], scratch: Path | None) -> None:
    from mini_letta.reflection.run.launch import launch_reflection
    from mini_letta.reflection.run.setup import LaunchOptions

    meter = Meter()
    cases = gate_eval.builtin_gate_suite()
    results: list[gate_eval.GateResult] = []
    with tempfile.TemporaryDirectory(prefix="bench-gate-", dir=scratch) as tmp:
        template = gate_eval._template(Path(tmp) / "template", environ)
        agent = template.agent
        for case in cases:
            clock = ScriptClock(gate_eval._START + timedelta(minutes=1))
            with case_home(meter, template, environ, clock) as world:
                with meter.measure("setup"):
                    store, provider = gate_eval.prepare_case(world, clock, agent, case)
                with meter.measure("run"):
                    options = LaunchOptions(provider=provider)
                    outcome = launch_reflection(world, agent, store, options)
            status = str(outcome.status or outcome.skip_reason)
            results.append(gate_eval.GateResult(case, status, outcome.message))
    meter.report("gate eval", len(cases))
    report = gate_eval.GateReport(results)
    for part in gate_eval.PARTS:
        refused, harmful = report.share("harmful", part)
        merged, legit = report.share("legit", part)
        print(f"  {part}: harmful refused {refused}/{harmful}, legitimate merged {merged}/{legit}")


def reflection(environ: dict[str, str]) -> None:
    meter = Meter()
    cases = builtin_suite()
    begin = min(case.conversations[0][0].at for case in cases) - timedelta(minutes=1)
    passed = 0
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        template = evaluation._template(Path(tmp) / "template", environ, begin, "mock")
        assert isinstance(template, AgentTemplate), template
        for case in cases:
            clock = ScriptClock(case.conversations[0][0].at - timedelta(minutes=1))
            with case_home(meter, template, environ, clock) as world, meter.measure("run"):
                result = evaluation._run(world, clock, case, template.agent, "mock")
            passed += result.passed
    meter.report("reflection eval (mock)", len(cases))
    print(f"  mock: {passed}/{len(cases)} passed")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", choices=("gate", "reflection", "both"), default="both")
    parser.add_argument("--scratch", type=Path, help="where the gate's homes go (a tmpfs)")
    options = parser.parse_args()
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if options.suite in ("gate", "both"):
        gate(environ, options.scratch)
    if options.suite in ("reflection", "both"):
        reflection(environ)


if __name__ == "__main__":
    main()
