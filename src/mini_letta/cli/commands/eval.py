"""`mini-letta eval reflection`: score reflection on scripted cases, per model; `eval gate`: the
memory gate's red-team suite; `eval secrets`: the secret scanner on its corpus."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mini_letta.cli.terminal import echo


@click.group("eval")
def eval_group() -> None:
    """Measure how well parts of mini-letta work with a given model."""


@eval_group.command("reflection")
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="MODEL",
    help="A model to evaluate (repeat to compare side by side; default: mock).",
)
@click.option(
    "--suite",
    type=click.Path(exists=True, path_type=Path),
    help="A suite file (.json/.yaml) or a folder of them, instead of the built-in cases.",
)
@click.option(
    "--output-format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def reflection_cmd(models: tuple[str, ...], suite: Path | None, fmt: str) -> None:
    """Run each case's transcript through reflection in a throwaway home and check the memory
    it leaves; prints a table of cases, what was wrong, the gate's rejections and the score.
    Exits 1 when any case failed on any model."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import builtin_suite, evaluate, load_suite, render_table

    world = current_world()
    cases = load_suite(suite) if suite is not None else builtin_suite()
    report = evaluate(cases, models or ("mock",), world.environ)
    if fmt == "json":
        echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        echo(render_table(report))
    if any(not result.passed for result in report.results):
        raise click.exceptions.Exit(1)  # a failed case fails the command, for scripts and CI


@eval_group.command("gate")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--verbose", is_flag=True, help="List every case, not only the misses.")
@click.option(
    "--case", "names", multiple=True, metavar="NAME", help="Run only this case (repeatable)."
)
def gate_cmd(as_json: bool, verbose: bool, names: tuple[str, ...]) -> None:
    """Run the memory gate's red-team suite (harmful and legitimate reflection edits, English
    and Chinese) through real reflection runs with a scripted model; prints the share of
    harmful edits refused and legitimate edits merged, for the tuned and held-out parts."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import builtin_gate_suite, evaluate_gate, render_gate_report

    cases = builtin_gate_suite()
    if names:
        unknown = sorted(set(names) - {case.name for case in cases})
        if unknown:
            raise click.BadParameter(f"no gate case named {unknown[0]!r}", param_hint="--case")
        cases = [case for case in cases if case.name in names]
    report = evaluate_gate(cases, current_world().environ)
    if as_json:
        echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        echo(render_gate_report(report, verbose))


@eval_group.command("secrets")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def secrets_cmd(as_json: bool) -> None:
    """Run the secret scanner over its corpus (fake credentials of 80 shapes, clean code and
    prose in English and Chinese); prints the share of credentials refused and of clean lines
    flagged, for the visible part and the held-out part."""
    from mini_letta.memory.secret_eval import render_scores, score_corpus

    scores = score_corpus()
    if as_json:
        echo(json.dumps([score.to_json() for score in scores], ensure_ascii=False, indent=2))
    else:
        echo(render_scores(scores))
