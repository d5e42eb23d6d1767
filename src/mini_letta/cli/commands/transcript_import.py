"""`mini-letta import FILE` and `import --all FOLDER`: other tools' sessions as conversations.

One file: the session becomes a conversation, or, imported before, gets only its new messages.
A folder (`--all`): every session in it (a Claude Code projects folder or one project, a Codex
sessions folder), with a progress bar on a terminal and one plain line per file otherwise; a
file that cannot be imported is one line on stderr and the rest go on (exit 1 at the end).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.conversations.importer import Importer, ImportOutcome
    from mini_letta.conversations.transcripts import Transcript


@click.command("import")
@click.argument("file", type=click.Path(path_type=str))
@click.option(
    "--all",
    "all_in",
    is_flag=True,
    help="FILE is a folder: import every session in it (Claude Code projects, Codex sessions).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("auto", "jsonl", "claude-code", "codex")),
    default="auto",
    show_default=True,
    help="The transcript's format.",
)
@agent_option
@click.option("--title", metavar="T", help="The new conversation's title.")
@click.option(
    "--output-format", "output_format", type=click.Choice(("text", "json")), default="text"
)
@click.option(
    "--reflect",
    "then_reflect",
    is_flag=True,
    help="Then reflect on it all (as `reflect --all`: progress, Ctrl-C stops after a slice).",
)
def import_cmd(
    file: str,
    all_in: bool,
    fmt: str,
    agent: str | None,
    title: str | None,
    output_format: str,
    then_reflect: bool,
) -> None:
    """Import a transcript (JSONL, a Claude Code session, a Codex rollout) as a conversation;
    again, only what is new."""
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.importer import Importer
    from mini_letta.workspace import resolve_or_create_agent

    if all_in and (title or then_reflect):
        raise click.UsageError("--title and --reflect take one file, not --all")
    world = current_world()
    path = (world.cwd / file) if not Path(file).is_absolute() else Path(file)
    as_json = output_format == "json"
    if all_in:
        if not path.is_dir():
            raise click.UsageError(f"--all takes a folder; {file} is not one")
        record = resolve_or_create_agent(world, agent)
        with Importer(world.home, record.id, world.clock) as importer:
            failed = _import_all(importer, path, fmt, as_json)
        if failed:
            raise click.exceptions.Exit(1)
        return
    transcript = _load(path, fmt)
    record = resolve_or_create_agent(world, agent)
    from mini_letta.conversations.importer import ImportSource

    with Importer(world.home, record.id, world.clock) as importer:
        outcome = importer.run(ImportSource(transcript, path.name, title))
    if as_json:
        echo(json.dumps(_outcome_json(outcome)))
    else:
        echo(_outcome_line(path.name, transcript, outcome))
    if then_reflect:
        from mini_letta.cli.backlog_view import reflect_all_command
        from mini_letta.reflection.api import LaunchOptions, open_reflect_hooks

        hooks = open_reflect_hooks(world, outcome.store)
        options = LaunchOptions(trigger="manual", hooks=hooks)
        reflect_all_command(world, record, outcome.store, options)


def _load(path: Path, fmt: str, within: Path | None = None) -> Transcript:
    from mini_letta.conversations.transcripts import load_transcript
    from mini_letta.log import warning

    transcript = load_transcript(path, fmt, within)
    for line in transcript.warnings:
        warning("%s", line)
    return transcript


def _import_all(importer: Importer, folder: Path, fmt: str, as_json: bool) -> int:
    """Import every session under `folder`; the number that failed (or were refused)."""
    from mini_letta.conversations.importer import ImportSource
    from mini_letta.conversations.transcript_base import EmptyTranscriptError
    from mini_letta.conversations.transcripts import find_session_files
    from mini_letta.errors import MiniLettaError
    from mini_letta.log import warning

    found = find_session_files(folder)
    for line in found.refused:
        warning("%s", line)
    results: list[dict[str, Any]] = []
    failed = len(found.refused)
    counts = {"created": 0, "appended": 0, "unchanged": 0, "empty": 0, "messages": 0}
    with _progress(len(found.files), as_json) as step:
        for path in found.files:
            name = str(path.relative_to(folder.resolve()))
            try:
                transcript = _load(path, fmt, folder)
                outcome = importer.run(ImportSource(transcript, path.name))
            except EmptyTranscriptError:  # titles or snapshots only: nothing to import
                counts["empty"] += 1
                step(name, f"{name}: no messages, skipped")
                results.append({"file": name, "skipped": "no messages"})
                continue
            except MiniLettaError as exc:
                failed += 1
                step(name, f"failed: {exc}")
                results.append({"file": name, "error": str(exc)})
                continue
            kind = "created" if outcome.created else "appended" if outcome.added else "unchanged"
            counts[kind] += 1
            counts["messages"] += outcome.added
            step(name, _outcome_line(name, transcript, outcome))
            results.append({"file": name, **_outcome_json(outcome)})
    parts = [
        f"{counts['created']} new conversation(s)",
        f"{counts['appended']} grown",
        f"{counts['unchanged']} unchanged",
    ]
    if counts["empty"]:
        parts.append(f"{counts['empty']} without messages")
    summary = f"{len(found.files)} session(s): {', '.join(parts)}; "
    summary += f"{counts['messages']} message(s) added"
    if failed:
        summary += f"; {failed} failed or refused"
    if as_json:
        echo(json.dumps({"files": results, "summary": {**counts, "failed": failed}}))
    else:
        echo(summary)
    if failed and not as_json:
        warning("%d file(s) not imported (see above)", failed)
    return failed


@contextmanager
def _progress(total: int, quiet: bool) -> Iterator[Callable[[str, str], None]]:
    """Per file: a rich progress bar on a terminal's stderr, else one plain line each."""
    terminal = current_terminal()
    if quiet or not terminal.stderr.isatty():
        done = [0]

        def line(name: str, said: str) -> None:
            done[0] += 1
            if not quiet:
                echo(f"[{done[0]}/{total}] {said}", err=True)
            elif said.startswith("failed: "):
                echo(f"mini-letta: {name}: {said}", err=True)

        yield line
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(file=terminal.stderr)
    columns = (
        TextColumn("importing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[file]}"),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("import", total=max(1, total), file="")

        def show(name: str, said: str) -> None:
            if said.startswith("failed: "):
                bar.console.print(f"{name}: {said}", markup=False, highlight=False)
            bar.update(task, advance=1, file=name)

        yield show


def _outcome_line(name: str, transcript: Transcript, outcome: ImportOutcome) -> str:
    conversation = outcome.store.conversation_id
    left_out = (
        f"; {transcript.harness_lines} line(s) of harness text left out"
        if transcript.harness_lines
        else ""
    )
    if outcome.created:
        return (
            f"Imported {outcome.added} message(s) from {name} ({transcript.format}) as "
            f"{conversation}{left_out}."
        )
    if outcome.added:
        return f"Added {outcome.added} new message(s) from {name} to {conversation}."
    return f"Nothing new in {name}: {conversation} already has its {outcome.total} message(s)."


def _outcome_json(outcome: ImportOutcome) -> dict[str, Any]:
    return {
        "conversationId": outcome.store.conversation_id,
        "messages": outcome.total,
        "added": outcome.added,
        "created": outcome.created,
    }
