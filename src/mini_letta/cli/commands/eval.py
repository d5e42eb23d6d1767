"""`mini-letta eval reflection`: score reflection on scripted cases, per model."""

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
    it leaves; prints a table of cases, what was wrong, the gate's rejections and the score."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import builtin_suite, evaluate, load_suite, render_table

    world = current_world()
    cases = load_suite(suite) if suite is not None else builtin_suite()
    report = evaluate(cases, models or ("mock",), world.environ)
    if fmt == "json":
        echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        echo(render_table(report))
