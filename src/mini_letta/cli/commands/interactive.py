"""The interactive session (`mini-letta` with no command): a REPL with slash commands.

Reflection always runs in the background here (cli/repl_watch.py); its line appears when it
finishes while the user keeps typing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from mini_letta.cli.terminal import echo

if TYPE_CHECKING:
    from mini_letta.cli.answer_view import AnswerView
    from mini_letta.cli.headless import ChatSession
    from mini_letta.cli.repl_watch import ReflectionWatch
    from mini_letta.cli.session_bar import SessionBar
    from mini_letta.cli.terminal import Terminal
    from mini_letta.workspace import World

LEAVE_HINT = "(Ctrl-C again, or Ctrl-D, to leave)"


def _read_line_factory(
    terminal: Terminal, world: World, bar: SessionBar
) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """The session's line reader and the approval prompt's (no history, no completion)."""
    if terminal.is_interactive():
        from prompt_toolkit import PromptSession

        from mini_letta.cli.repl_input import build_prompt_session

        session = build_prompt_session(world.home.input_history_file, world.cwd, bar.text)
        answers: PromptSession[str] = PromptSession()
        return (lambda prompt: session.prompt(prompt)), (lambda prompt: answers.prompt(prompt))
    plain = lambda prompt: _plain_readline(terminal)  # noqa: E731
    return plain, plain


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
    from mini_letta.cli.headless import ChatSession, SessionRequest
    from mini_letta.cli.session_bar import SessionBar
    from mini_letta.cli.session_status import PendingNotice, request_recompile, status_lines
    from mini_letta.cli.slash_catalog import help_text, unknown_command_line

    bar = SessionBar("", "", 0, running=lambda: watch.running)
    read_line, read_answer = _read_line_factory(terminal, world, bar)
    approve = build_terminal_approver(read_answer, terminal.stderr, world.cwd)
    request = SessionRequest(
        world=world,
        approve=approve,
        reflection_watch=watch,
        answer_view=_answer_view(terminal),
        on_reflection=bar.saw,
    )
    session = ChatSession(request, terminal.stdout, terminal.stderr)
    watch.agent_id = session.agent.id
    watch.on_outcome = bar.saw
    interrupted = False  # the last thing was a Ctrl-C: one more on an empty line leaves
    pending = PendingNotice()
    echo(
        f"mini-letta · agent {session.agent.name} · {session.setup.provider.handle} · "
        "/help for commands, Ctrl-D to leave",
        err=True,
    )
    while True:
        watch.print_finished()
        bar.agent, bar.model = session.agent.name, session.setup.provider.handle
        bar.window = session.setup.provider.context_window
        try:
            line = read_line("› ").strip()
        except EOFError:
            return
        except KeyboardInterrupt:
            if interrupted:
                return
            interrupted = True
            echo(LEAVE_HINT, err=True)
            continue
        interrupted = False
        watch.print_finished()  # a reflection that ended while we waited for this line
        if not line:
            continue
        if line in ("/exit", "/quit"):
            return
        if line == "/help":
            echo(help_text())
            continue
        if line == "/new":
            session = ChatSession(replace(request, new=True), terminal.stdout, terminal.stderr)
            echo(f"New conversation {session.store.conversation_id}.", err=True)
            continue
        if line == "/compact":
            _compact(session)
            continue
        if line == "/recompile":
            echo(request_recompile(session.setup), err=True)
            continue
        if line == "/status":
            echo("\n".join(status_lines(session.setup)), err=True)
            continue
        if run_slash_command(line, session, watch):
            continue
        if line.startswith("/"):
            echo(unknown_command_line(line.split()[0]), err=True)
            continue
        watch.turn_running = True
        try:
            session.turn(line)
        except KeyboardInterrupt:
            interrupted = True
            echo(f"\n(interrupted) {LEAVE_HINT}", err=True)
        finally:
            watch.turn_running = False
        bar.usage = session.renderer.last_usage or bar.usage
        notice = pending.line(session.setup)
        if notice:
            echo(notice, err=True)


def _answer_view(terminal: Terminal) -> AnswerView | None:
    """On a terminal, answers end as markdown; piped, they stay plain text."""
    if not terminal.is_interactive():
        return None
    from mini_letta.cli.answer_view import AnswerView

    return AnswerView.for_terminal(terminal.stdout, terminal.environ)


def _compact(session: ChatSession) -> None:
    from mini_letta.errors import MiniLettaError
    from mini_letta.loop.pressure import compact_now

    try:
        result = compact_now(session.setup)
    except MiniLettaError as exc:
        echo(f"mini-letta: {exc}", err=True)
        return
    if result is None:
        echo("Nothing to compact yet.", err=True)
    else:
        echo(
            f"  ↻ compacted {result.messages_compacted} messages "
            f"({result.tokens_before} → {result.tokens_after} tokens)",
            err=True,
        )
