"""`mini-letta reflections list|show|undo|accept|discard RUN-ID`: run records, their diffs,
undo, and a person's decision on a run the memory gate rejected."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from mini_letta.cli.fit import text_columns, wrap_line, wrap_lines
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.reflection.api import RunRecord


@click.group()
def reflections() -> None:
    """Inspect past reflection runs."""


@reflections.command("list")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--failed",
    "only_failed",
    is_flag=True,
    help="Only runs that merged nothing because something went wrong (with their reasons).",
)
def list_cmd(agent: str | None, as_json: bool, only_failed: bool) -> None:
    """List reflection runs, newest first; runs that went wrong say why."""
    from mini_letta.cli.reflection_view import show_waiting_outcomes
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import failure_summary, list_runs, went_wrong, with_dead_runs
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    show_waiting_outcomes(world, record.id)
    found, damaged = list_runs(world.home, record.id)
    found = with_dead_runs(world.home, record.id, found, world.clock)
    if only_failed:
        found = [run for run in found if went_wrong(run)]
    if as_json:
        entries = [r.to_json() for r in found] + [bad.to_json("runId") for bad in damaged]
        echo(json.dumps(entries, ensure_ascii=False, indent=2))
        return
    if not found and not damaged:
        echo(
            "No failed or rejected reflection runs."
            if only_failed
            else "No reflection runs yet; `mini-letta reflect` starts one."
        )
        return
    width = current_terminal().columns()
    for run in found:
        status = _status_label(run)
        line = (
            f"{run.run_id}  {status:<17} {run.trigger:<16} "
            f"{run.commit_count} commit(s)  {run.message}"
        )
        if width is not None and text_columns(line) > width:  # two rows, the second wrapped
            detail = f"  {run.trigger} · {run.commit_count} commit(s) · {run.message}"
            line = "\n".join([f"{run.run_id}  {status}", *wrap_line(detail, width, 4)])
        echo(line)
    for line in wrap_lines([bad.render() for bad in damaged], width):
        echo(line)
    wrong = [run for run in found if went_wrong(run)]
    if wrong:
        echo("\n".join(wrap_lines([failure_summary(wrong, len(found))], width)))


def _status_label(run: RunRecord) -> str:
    """The status, with a person's decision on a rejected run, or that one is awaited."""
    if run.decision:
        return f"{run.status} ({run.decision})"
    if run.status == "rejected":
        return "rejected (waiting: accept or discard)"
    return run.status


@reflections.command("show")
@click.argument("run_id", metavar="RUN-ID")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
def show_cmd(run_id: str, agent: str | None, as_json: bool) -> None:
    """Show one run: its record and the memory diff it made."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import describe_run, load_run, with_dead_runs
    from mini_letta.workspace import resolve_agent

    world = current_world()
    agent_id = resolve_agent(world, agent, check_memory=False).id
    record = load_run(world.home, agent_id, run_id)
    (record,) = with_dead_runs(world.home, agent_id, [record], world.clock)
    if as_json:
        echo(json.dumps(record.to_json(), ensure_ascii=False, indent=2))
        return
    head, blank, diff = describe_run(world.home, record).partition("\n\n")
    fitted = wrap_lines(head.split("\n"), current_terminal().columns(), 14)  # the diff stays whole
    echo("\n".join(fitted) + blank + diff, nl=False)


@reflections.command("undo")
@click.argument("run_id", metavar="RUN-ID")
@agent_option
def undo_cmd(run_id: str, agent: str | None) -> None:
    """Revert a merged run and let reflection reconsider its messages."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import undo
    from mini_letta.workspace import resolve_agent

    world = current_world()
    reverts = undo(world.home, resolve_agent(world, agent).id, run_id, world.clock)
    echo(f"Undid reflection run {run_id} ({len(reverts)} revert commit(s)).")


@reflections.command("accept")
@click.argument("run_id", metavar="RUN-ID")
@agent_option
def accept_cmd(run_id: str, agent: str | None) -> None:
    """Merge a run the memory gate rejected anyway (your decision is recorded)."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import accept
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = accept(world.home, resolve_agent(world, agent).id, run_id, world.clock)
    echo(f"Accepted reflection run {run_id}: merged as {str(record.merge_commit)[:12]}.")


@reflections.command("discard")
@click.argument("run_id", metavar="RUN-ID")
@agent_option
def discard_cmd(run_id: str, agent: str | None) -> None:
    """Drop a run the memory gate rejected; its messages will be reflected on again."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import discard
    from mini_letta.workspace import resolve_agent

    world = current_world()
    discard(world.home, resolve_agent(world, agent).id, run_id)
    echo(f"Discarded reflection run {run_id}; its messages will be reflected on again.")
