"""`mini-letta memory path|tree|show|log|diff|status|validate|undo|edit|recover|blame|why|doctor`:
an agent's memory repo."""

from __future__ import annotations

import json
from typing import Any

import click

from mini_letta.cli.commands.memory_share import (
    SHARE_COMMANDS,
    agent_memory_dir,
    warn_over_budget,
)
from mini_letta.cli.commands.palace import doctor_cmd
from mini_letta.cli.fit import fit_line, wrap_line
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def _dump(data: Any) -> None:
    echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group()
def memory() -> None:
    """Inspect and edit an agent's memory (a git repository of markdown files)."""


for _command in SHARE_COMMANDS:
    memory.add_command(_command)
memory.add_command(doctor_cmd)


@memory.command("path")
@agent_option
def path_cmd(agent: str | None) -> None:
    """Print the memory folder (even when it is gone: see `memory recover`)."""
    echo(str(agent_memory_dir(agent, check=False)[1]))


@memory.command("tree")
@agent_option
@json_option
def tree_cmd(agent: str | None, as_json: bool) -> None:
    """List the memory files with their descriptions."""
    from mini_letta.memory.compile import render_tree_lines
    from mini_letta.memory.edits import list_memory_tree

    _, folder = agent_memory_dir(agent)
    entries = list_memory_tree(folder)
    if as_json:
        _dump([{"path": path, "description": desc} for path, desc in entries])
        return
    width = current_terminal().columns()
    echo("\n".join(wrap_line(f"{folder}/", width)))
    for line in render_tree_lines(entries):
        echo(fit_line(line, width))


@memory.command("show")
@click.argument("path")
@agent_option
@click.option("--rev", metavar="REV", help="Show the file as it was at this git revision.")
def show_cmd(path: str, agent: str | None, rev: str | None) -> None:
    """Print one memory file."""
    from mini_letta.memory.history import show_memory_file

    echo(show_memory_file(agent_memory_dir(agent)[1], path, rev), nl=False)


@memory.command("log")
@agent_option
@click.option("-n", "limit", type=click.IntRange(min=1), default=20, show_default=True)
@json_option
def log_cmd(agent: str | None, limit: int, as_json: bool) -> None:
    """List memory commits, newest first."""
    from mini_letta.memory.history import load_log

    entries = load_log(agent_memory_dir(agent)[1], limit)
    if as_json:
        _dump([{"sha": e.sha, "date": e.date, "author": e.author, "subject": e.subject}
               for e in entries])  # fmt: skip
        return
    width = current_terminal().columns()
    for e in entries:
        echo(fit_line(f"{e.sha[:7]}  {e.date[:16].replace('T', ' ')}  {e.subject}", width))


@memory.command("diff")
@click.argument("rev", required=False, default="HEAD")
@agent_option
def diff_cmd(rev: str, agent: str | None) -> None:
    """Show changes in the memory folder since REV (default HEAD: what is uncommitted)."""
    from mini_letta.memory.history import load_diff

    text = load_diff(agent_memory_dir(agent)[1], rev)
    if text:
        echo(text, nl=False)
    else:
        echo("No changes.")


@memory.command("status")
@agent_option
@json_option
def status_cmd(agent: str | None, as_json: bool) -> None:
    """Show the memory branch, HEAD and any uncommitted changes."""
    from mini_letta.cli.world import current_world
    from mini_letta.memory.history import load_status
    from mini_letta.sync.state import files_needing_review

    agent_id, folder = agent_memory_dir(agent)
    status = load_status(folder)
    world = current_world()
    review = files_needing_review(world.home, agent_id, world.clock)
    if as_json:
        changes = [{"status": code, "path": path} for code, path in status.changes]
        _dump({"agentId": agent_id, "path": status.path, "branch": status.branch,
               "head": status.head, "clean": status.clean, "changes": changes,
               "needsReview": list(review)})  # fmt: skip
        return
    echo(f"memory: {status.path}")
    echo(f"branch: {status.branch or '(detached)'} at {(status.head or 'no commits')[:7]}")
    if status.clean:
        echo("clean")
    for code, path in status.changes:
        echo(f"  {code} {path}")
    for path in review:
        echo(f"needs review: {path} (memory sync kept both machines' versions)")


@memory.command("validate")
@agent_option
@json_option
def validate_cmd(agent: str | None, as_json: bool) -> None:
    """Check every memory file's frontmatter, the skill layout, and for secrets."""
    from mini_letta.memory.history import validate_memory

    checked, problems = validate_memory(agent_memory_dir(agent)[1])
    if as_json:
        _dump({"valid": not problems, "files": checked,
               "problems": [{"path": p.path, "problem": p.problem} for p in problems]})  # fmt: skip
    else:
        for problem in problems:
            echo(f"{problem.path}: {problem.problem}")
        echo(f"{checked} files checked, {len(problems)} problems")
    if problems:
        raise click.exceptions.Exit(1)


@memory.command("undo")
@click.argument("ref", metavar="[RUN-ID|REV]", required=False)
@agent_option
def undo_cmd(ref: str | None, agent: str | None) -> None:
    """Revert one memory commit (default: the last), or a reflection run, as a new commit."""
    from mini_letta.memory.history import resolve_undo_rev, undo_commit
    from mini_letta.reflection.api import is_run_id

    agent_id, folder = agent_memory_dir(agent)
    if ref and is_run_id(ref):  # a reflection run: revert its merge and rewind its watermark
        from mini_letta.cli.world import current_world
        from mini_letta.reflection.api import undo

        world = current_world()
        reverts = undo(world.home, agent_id, ref, world.clock)
        echo(f"reverted reflection run {ref.strip()} as {reverts[-1][:7]}")
        return
    sha = resolve_undo_rev(folder, ref)  # reflection adds run_lookup= for run ids
    new = undo_commit(folder, sha)
    echo(f"reverted {sha[:7]} as {new[:7]}")


@memory.command("edit")
@click.argument("path")
@agent_option
def edit_cmd(path: str, agent: str | None) -> None:
    """Open a memory file in $EDITOR; it is validated and committed when you save."""
    from mini_letta.memory.history import save_hand_edit

    agent_id, folder = agent_memory_dir(agent)
    sha = save_hand_edit(folder, path, _edit_in_editor)
    echo(f"committed {sha[:7]}" if sha else "no changes")
    if sha:
        warn_over_budget(agent_id, [path.strip()])


@memory.command("blame")
@click.argument("path")
@agent_option
@json_option
def blame_cmd(path: str, agent: str | None, as_json: bool) -> None:
    """Show each line of a memory file with the commit, date and reflection run that wrote it."""
    from mini_letta.memory.repo import GitRepo
    from mini_letta.reflection.api import blame_file

    _, folder = agent_memory_dir(agent)
    lines = blame_file(GitRepo(folder), path)
    if as_json:
        _dump(
            [
                {
                    "line": b.number,
                    "commit": b.commit,
                    "date": b.date,
                    "runId": b.run_id,
                    "text": b.text,
                }
                for b in lines
            ]
        )
        return
    width = len(str(len(lines)))
    for b in lines:
        echo(f"{b.commit[:12]} {b.date} {b.run_id or '-':<23} {b.number:>{width}}: {b.text}")


@memory.command("why")
@click.argument("where", metavar="FILE:LINE")
@agent_option
def why_cmd(where: str, agent: str | None) -> None:
    """Print the messages a reflection cited as the evidence for one memory line."""
    from mini_letta.cli.world import current_world
    from mini_letta.errors import InvalidValueError
    from mini_letta.reflection.api import why_line

    path, _, number = where.rpartition(":")
    if not path or not number.isdigit():
        raise InvalidValueError(f"{where!r} is not FILE:LINE (like system/human.md:3)")
    agent_id, _ = agent_memory_dir(agent)
    why = why_line(current_world().home, agent_id, path, int(number))
    line = why.line
    echo(f"{path}:{line.number}: {line.text}")
    origin = f"reflection run {line.run_id}" if line.run_id else "a commit outside reflection"
    echo(f"written by {origin} (commit {line.commit[:12]}, {line.date})")
    if not why.messages:
        echo("no evidence was cited for this line")
        return
    for conversation, message in why.messages:
        content = " ".join(message.content.split())
        echo(f"  {message.id} [{conversation} {message.created_at}] {message.role}: {content}")
    missing = [i for i in why.cited if i not in {m.id for _, m in why.messages}]
    if missing:
        echo(f"  (cited but no longer found: {', '.join(missing)})")


@memory.command("recover")
@agent_option
@click.option("--empty", is_flag=True, help="Start with default files only.")
def recover_cmd(agent: str | None, empty: bool) -> None:
    """Start a lost or broken memory again: the old folder is moved aside, never deleted, and
    its .md files become the first commit."""
    from mini_letta.cli.world import current_world
    from mini_letta.memory.recover import recover_memory

    _, folder = agent_memory_dir(agent, check=False)
    done = recover_memory(folder, current_world().clock, empty=empty)
    if done is None:
        echo(f"The memory at {folder} is intact; nothing to recover.")
        return
    kept = f"{len(done.kept)} .md file(s) kept in the first commit"
    old = f"; the old folder is {done.aside}" if done.aside else ""
    echo(f"Started the memory at {folder} again ({kept}){old}")


def _edit_in_editor(text: str) -> str:
    from mini_letta.cli.terminal import current_terminal

    environ = dict(current_terminal().environ)
    editor = environ.get("VISUAL") or environ.get("EDITOR")
    edited = click.edit(text, editor=editor, env=environ, extension=".md", require_save=False)
    return text if edited is None else edited
