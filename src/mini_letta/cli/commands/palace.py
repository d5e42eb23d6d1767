"""`mini-letta palace [-o FILE] [--open] [--serve]` and `mini-letta memory doctor [--json]
[--fix]`: the memory palace page and the memory audit. The work is `mini_letta.palace`'s;
this module picks the agent, renders and opens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mini_letta.cli.fit import wrap_lines
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord
    from mini_letta.palace.doctor import Finding
    from mini_letta.palace.gather import PalaceInput
    from mini_letta.workspace import World


@click.command("palace")
@agent_option
@click.option(
    "-o",
    "--output",
    "output",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write the page here (default: palace.html in the agent's folder).",
)
@click.option("--open", "open_it", is_flag=True, help="Open the page in the browser.")
@click.option(
    "--serve",
    is_flag=True,
    help="Serve the page on 127.0.0.1 (a random token in the URL); it reloads as "
    "memory changes. Read-only; Ctrl-C stops it.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    metavar="N",
    help="The port for --serve (default: any free one).",
)
@click.option(
    "--messages",
    type=click.IntRange(0, 100_000),
    default=None,
    metavar="N",
    help="Embed the N most recent messages of each conversation (default 200).",
)
def palace(
    agent: str | None,
    output: str | None,
    open_it: bool,
    serve: bool,
    port: int,
    messages: int | None,
) -> None:  # fmt: skip
    """Write the memory palace: one self-contained HTML page of the memory, where each line
    came from, the reflection runs, the watermarks, charts and the doctor's findings."""
    from mini_letta.cli.world import current_world
    from mini_letta.palace.page import build_palace, default_palace_file, save_palace
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent)
    source = _source(world, record, messages)
    if serve:
        _serve(source, port, open_it)
        return
    target = Path(output).expanduser() if output else default_palace_file(world.home, record)
    if not target.is_absolute():
        target = world.cwd / target
    page = build_palace(source)
    save_palace(target, page.html)
    size = len(page.html.encode("utf-8"))
    echo(f"Wrote {target} ({size // 1024} KiB: {page.files} files, {page.runs} reflection runs, "
         f"{page.findings} doctor finding(s)).")  # fmt: skip
    if open_it:
        _open(target.as_uri())


def _source(world: World, record: AgentRecord, messages: int | None) -> PalaceInput:
    from mini_letta.palace.gather import MESSAGE_LIMIT, PalaceInput
    from mini_letta.palace.origins import memory_limits, primary_window
    from mini_letta.reflection.api import load_settings

    settings = load_settings(world.home, world.project_dir, record)
    limit = MESSAGE_LIMIT if messages is None else messages
    return PalaceInput(world.home, record, memory_limits(world, record, settings),
                       primary_window(world, record), world.clock, limit)  # fmt: skip


def _serve(source: PalaceInput, port: int, open_it: bool) -> None:
    from mini_letta.palace.page import build_palace
    from mini_letta.palace.serve import PalaceServer, memory_version

    version = memory_version(source.home, source.agent.id)
    try:
        server = PalaceServer(lambda v: build_palace(source, v).html, version, port)
    except OSError as exc:
        raise click.ClickException(f"cannot serve on 127.0.0.1:{port}: {exc.strerror}") from exc
    echo(f"Serving the memory palace at {server.url} (read-only; Ctrl-C stops it).")
    if open_it:
        _open(server.url)
    try:
        server.serve_forever()
    finally:
        server.close()


def _open(url: str) -> None:
    """$BROWSER (as the terminal's environment has it; `%s` is the URL) or the system's."""
    import shlex

    terminal = current_terminal()
    browser = terminal.environ.get("BROWSER", "").split(":")[0].strip()
    if browser:
        args = shlex.split(browser)
        args = [a.replace("%s", url) for a in args] if "%s" in browser else [*args, url]
        from mini_letta.cli.background import start_detached

        try:  # reaped when it exits: a long session (`/palace --open`) keeps no zombie
            start_detached(args, terminal.environ)
        except OSError as exc:
            raise click.ClickException(f"could not start $BROWSER ({exc.strerror})") from exc
        return
    import webbrowser

    if not webbrowser.open(url):
        echo(f"No browser found; open {url} yourself.", err=True)


@click.command("doctor")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option(
    "--fix",
    is_flag=True,
    help="Start a reflection run whose task is the findings (through the memory "
    "gate; review, accept or undo it like any run).",
)
def doctor_cmd(agent: str | None, as_json: bool, fix: bool) -> None:
    """Audit memory: duplicates, contradictions, budgets, placeholders, lines without
    provenance, files the prompt never points to, secrets, frontmatter, odd files. Exit 1 when
    anything is severe."""
    from mini_letta.cli.world import current_world
    from mini_letta.palace.doctor import count_findings
    from mini_letta.palace.origins import memory_limits, run_doctor
    from mini_letta.reflection.api import load_settings
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent)
    settings = load_settings(world.home, world.project_dir, record)
    findings = run_doctor(
        world.home, record.id, memory_limits(world, record, settings), world.clock
    )
    counts = count_findings(findings)
    if as_json:
        echo(json.dumps({"agentId": record.id, "counts": counts,
                         "findings": [f.to_json() for f in findings]},
                        ensure_ascii=False, indent=2))  # fmt: skip
    else:
        width = current_terminal().columns()
        for line in wrap_lines([_line(f) for f in findings], width, 4):
            echo(line)
        echo(f"{len(findings)} finding(s): {counts['severe']} severe, {counts['warning']} "
             f"warning(s), {counts['info']} info")  # fmt: skip
    fixed = True
    if fix:
        fixed = _fix(world, record, findings)
    if counts["severe"] or not fixed:
        raise click.exceptions.Exit(1)


def _line(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}" if finding.line else finding.path
    return f"{finding.severity:<7} {where}  {finding.message} → {finding.advice}"


def _fix(world: World, record: AgentRecord, findings: list[Finding]) -> bool:
    """One reflection run over the current (else the latest) conversation, told the findings."""
    from mini_letta.cli.reflection_view import render_outcome_line
    from mini_letta.conversations.registry import list_conversations
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.palace.doctor import fix_instruction
    from mini_letta.reflection.api import (
        LaunchOptions,
        drained_after,
        launch_many,
        open_reflect_hooks,
    )
    from mini_letta.settings import read_settings

    if not findings:
        echo("Nothing to fix.", err=True)
        return True
    current = read_settings(world.home, world.project_dir).current_conversation_id(record.id)
    ids = [current] if current else [c.id for c in list_conversations(world.home, record.id)[:1]]
    stores = [ConversationStore(record.id, i, world.home) for i in ids]
    stores = [store for store in stores if store.exists()]
    if not stores:
        raise click.ClickException("memory doctor --fix needs a conversation to reflect with; "
                                   "chat first")  # fmt: skip
    hooks = open_reflect_hooks(world, stores[0])
    options = LaunchOptions(trigger="manual", instruction=fix_instruction(findings), hooks=hooks)
    with drained_after(world, record.id):
        outcome = launch_many(world, record, stores, options)
        echo(render_outcome_line(outcome), err=True)
    return outcome.ok
