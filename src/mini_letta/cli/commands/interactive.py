"""The interactive session (`mini-letta` with no command): a REPL with slash commands.

Reflection always runs in the background here (cli/repl_watch.py); its line appears when it
finishes while the user keeps typing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mini_letta.cli.terminal import echo
from mini_letta.home import ensure_dir

if TYPE_CHECKING:
    from mini_letta.cli.repl_watch import ReflectionWatch
    from mini_letta.cli.terminal import Terminal
    from mini_letta.workspace import World


def _read_line_factory(terminal: Terminal, history: Path) -> Callable[[str], str]:
    if terminal.is_interactive():
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        ensure_dir(history.parent)
        session: PromptSession[str] = PromptSession(history=FileHistory(str(history)))
        return lambda prompt: session.prompt(prompt)
    return lambda prompt: _plain_readline(terminal)


def _plain_readline(terminal: Terminal) -> str:
    line = terminal.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def open_interactive(ctx: click.Context) -> None:
    from mini_letta.cli.repl_watch import open_watch
    from mini_letta.cli.terminal import current_terminal
    from mini_letta.cli.world import current_world

    terminal = current_terminal()
    world = current_world()
    with open_watch(world, terminal) as watch:
        _loop(world, terminal, watch)


def _loop(world: World, terminal: Terminal, watch: ReflectionWatch) -> None:
    from mini_letta.cli.approval import build_terminal_approver
    from mini_letta.cli.commands.slash import run_slash_command
    from mini_letta.cli.commands.slash_state import SlashState
    from mini_letta.cli.headless import ChatSession, SessionRequest
    from mini_letta.cli.session_status import PendingNotice

    read_line = _read_line_factory(terminal, world.home.input_history_file)
    approve = build_terminal_approver(read_line, terminal.stderr)
    request = SessionRequest(world=world, approve=approve, reflection_watch=watch)
    session = ChatSession(request, terminal.stdout, terminal.stderr)
    state = SlashState(request, session, watch, read_line, terminal)
    watch.agent_id = session.agent.id
    pending = PendingNotice()
    echo(
        f"mini-letta · agent {session.agent.name} · {session.setup.provider.handle} · "
        "/help for commands, Ctrl-D to leave",
        err=True,
    )
    while True:
        watch.print_finished()
        try:
            line = read_line("› ").strip()
        except EOFError:
            return
        except KeyboardInterrupt:
            continue
        watch.print_finished()  # a reflection that ended while we waited for this line
        if not line:
            continue
        if line.startswith("/"):
            if not run_slash_command(line, state):
                return
            continue
        try:
            state.session.turn(line)
        except KeyboardInterrupt:
            echo("(interrupted)", err=True)
        notice = pending.line(state.session.setup)
        if notice:
            echo(notice, err=True)
