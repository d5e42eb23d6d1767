"""`mini-letta eval reflection`: run eval cases through the real reflection pipeline.

Each case gets a throwaway home with a fresh agent on the model under test. Its conversations
are written to the log with their scripted timestamps (the clock follows the script), and after
each conversation the agent reflects once, as after a session (a transcript longer than one
payload is taken in chunks, a run each). Then the checks read the memory files. A run that
does not merge (failed, rejected by the gate, ...) is recorded with its message; the checks
still judge whatever memory holds.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.registry import create_conversation
from mini_letta.errors import MiniLettaError
from mini_letta.ids import new_message_id
from mini_letta.reflection.evals.eval_cases import EvalCase
from mini_letta.reflection.evals.homes import AgentTemplate, copied_home, make_template
from mini_letta.reflection.state.records import RunRecord, list_run_records
from mini_letta.structs import Struct, field
from mini_letta.workspace import World

DEFAULT_JOBS = 4


class ScriptClock:
    """The eval's clock: it reads the time the script sets, and sleeping advances it."""

    def __init__(self, start: datetime) -> None:
        self.current = start
        self.mono = 0.0

    def now(self) -> datetime:
        return self.current

    def monotonic(self) -> float:
        return self.mono

    def sleep(self, seconds: float) -> None:
        self.set(self.current + timedelta(seconds=seconds))

    def set(self, moment: datetime) -> None:
        if moment > self.current:
            self.mono += (moment - self.current).total_seconds()
            self.current = moment


class CaseResult(Struct, frozen=True):
    case: str
    model: str
    problems: tuple[str, ...]  # empty: passed
    runs: tuple[str, ...]  # each run's status, oldest first
    rejections: tuple[str, ...] = ()  # runs the memory gate rejected, with its reasons
    errors: tuple[str, ...] = ()  # runs that did not finish, with why

    @property
    def passed(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "model": self.model,
            "passed": self.passed,
            "problems": list(self.problems),
            "runs": list(self.runs),
            "rejections": list(self.rejections),
            "errors": list(self.errors),
        }


class EvalReport(Struct):
    models: tuple[str, ...]
    results: list[CaseResult] = field(default_factory=list)

    def score(self, model: str) -> tuple[int, int]:
        mine = [r for r in self.results if r.model == model]
        return sum(r.passed for r in mine), len(mine)

    def to_json(self) -> dict[str, Any]:
        scores = {}
        for model in self.models:
            passed, total = self.score(model)
            scores[model] = {"passed": passed, "total": total, "score": _ratio(passed, total)}
        return {"models": list(self.models), "scores": scores, "results": [
            r.to_json() for r in self.results
        ]}  # fmt: skip


def run_suite(
    cases: Sequence[EvalCase],
    models: Sequence[str],
    environ: Mapping[str, str],
    jobs: int = DEFAULT_JOBS,
) -> EvalReport:
    """Every case on every model, results in suite order. Each case runs in its own home, a
    copy of one agent's home made per model (before the suite's first message); most of a
    case's time is git and fsync waiting, so `jobs` threads run them."""
    from concurrent.futures import ThreadPoolExecutor

    if not cases:
        return EvalReport(tuple(models), [])
    start = min(case.conversations[0][0].at for case in cases) - timedelta(minutes=1)
    with tempfile.TemporaryDirectory(prefix="mini-letta-eval-") as tmp:
        root = Path(tmp)
        made = {
            m: _template(root / f"template-{n}", environ, start, m) for n, m in enumerate(models)
        }
        pairs = [(case, model) for case in cases for model in models]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = list(pool.map(lambda p: _in_copy(made[p[1]], p[0], p[1], environ), pairs))
    return EvalReport(tuple(models), results)


def run_case(case: EvalCase, model: str, environ: Mapping[str, str]) -> CaseResult:
    """One case on one model (a home of its own, made for it)."""
    with tempfile.TemporaryDirectory(prefix="mini-letta-eval-") as tmp:
        start = case.conversations[0][0].at - timedelta(minutes=1)
        template = _template(Path(tmp) / "template", environ, start, model)
        return _in_copy(template, case, model, environ)


def _template(
    root: Path, environ: Mapping[str, str], start: datetime, model: str
) -> AgentTemplate | MiniLettaError:
    """A fresh agent on `model`, or why it cannot be made (each of its cases says so)."""
    try:
        return make_template(root, environ, ScriptClock(start), model)
    except MiniLettaError as exc:
        return exc


def _in_copy(
    template: AgentTemplate | MiniLettaError,
    case: EvalCase,
    model: str,
    environ: Mapping[str, str],
) -> CaseResult:
    if isinstance(template, MiniLettaError):
        return CaseResult(case.name, model, (f"the pipeline failed: {template}",), ())
    clock = ScriptClock(case.conversations[0][0].at - timedelta(minutes=1))
    with copied_home(template, environ, clock) as world:
        try:
            return _run(world, clock, case, template.agent, model)
        except MiniLettaError as exc:
            return CaseResult(case.name, model, (f"the pipeline failed: {exc}",), ())


def _run(
    world: World, clock: ScriptClock, case: EvalCase, agent: AgentRecord, model: str
) -> CaseResult:
    from mini_letta.reflection.run.launch import launch_reflection
    from mini_letta.reflection.run.setup import LaunchOptions

    rejections: list[str] = []
    errors: list[str] = []
    options = LaunchOptions(chunk_tokens=case.chunk_tokens)
    for conversation in case.conversations:
        clock.set(conversation[0].at)
        store = create_conversation(world.home, agent.id, clock)
        store.append([_message(clock, m.role, m.content, m.at) for m in conversation])
        clock.set(conversation[-1].at + timedelta(minutes=5))
        outcome = launch_reflection(world, agent, store, options)  # long slices: in chunks
        if str(outcome.status) == "rejected":  # the memory gate's verdict
            rejections.append(outcome.message)
        elif not outcome.ok:
            errors.append(outcome.message)
    runs = [record.status for record in _in_order(list_run_records(world.home, agent.id))]
    files = memory_files(world.home.memory_dir(agent.id))
    problems = [p for check in case.checks if (p := check.failure(files)) is not None]
    problems += [f"run did not merge: {error}" for error in errors]
    return CaseResult(
        case.name, model, tuple(problems), tuple(runs), tuple(rejections), tuple(errors)
    )


def _in_order(records: list[RunRecord]) -> list[RunRecord]:
    """Oldest first; the chunks of one launch start together, so their slices order them."""
    return sorted(records, key=lambda r: (r.started_at, r.slices[0].start_line if r.slices else 0))


def _message(clock: ScriptClock, role: str, content: str, at: datetime) -> Message:
    clock.set(at)
    return Message(
        id=new_message_id(at),
        role="user" if role == "user" else "assistant",
        content=content,
        created_at=format_timestamp(at),
    )


def memory_files(folder: Path) -> dict[str, str]:
    """Every text file of the memory repository's working tree, by its path in memory (git's
    own folder is never walked: its objects outnumber the memory files)."""
    files: dict[str, str] = {}
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not (top == str(folder) and d == ".git"))
        for name in names:
            path = Path(top, name)
            if not path.is_file():
                continue
            try:
                files[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
    return dict(sorted(files.items()))


def render_table(report: EvalReport) -> str:
    """Case by model, PASS/FAIL and what was wrong, then the gate's rejections and the score."""
    width = max([len(r.case) for r in report.results] + [4])
    lines = ["case".ljust(width) + "".join(f"  {m}" for m in report.models)]
    by_case: dict[str, dict[str, CaseResult]] = {}
    for result in report.results:
        by_case.setdefault(result.case, {})[result.model] = result
    for case, results in by_case.items():
        cells = [("PASS" if results[m].passed else "FAIL").ljust(len(m)) for m in report.models]
        lines.append(case.ljust(width) + "".join(f"  {cell}" for cell in cells))
        for model in report.models:
            for problem in results[model].problems:
                which = f"[{model}] " if len(report.models) > 1 else ""
                lines.append(" " * width + f"    {which}{problem}")
    rejected = [r for r in report.results if r.rejections]
    if rejected:
        lines.append("gate rejections:")
        for result in rejected:
            lines += [f"  {result.case} [{result.model}]: {why}" for why in result.rejections]
    for model in report.models:
        passed, total = report.score(model)
        lines.append(f"score {model}: {passed}/{total} ({_ratio(passed, total):.0%})")
    return "\n".join(lines)


def _ratio(passed: int, total: int) -> float:
    return passed / total if total else 0.0
