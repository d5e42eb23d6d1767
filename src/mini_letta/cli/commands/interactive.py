"""The interactive session (`mini-letta` with no command): a REPL with slash commands.

Reflection always runs in the background here (cli/repl_watch.py); its line appears when it
finishes while the user keeps typing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from mini_letta.cli.terminal import echo_wrapped
from mini_letta.structs import replace

if TYPE_CHECKING:
    from mini_letta.cli.answer_view import AnswerView
    from mini_letta.cli.commands.slash_state import SlashState
    from mini_letta.cli.headless import SessionRequest
    from mini_letta.cli.repl_watch import ReflectionWatch
    from mini_letta.cli.session_bar import SessionBar
    from mini_letta.cli.session_start import SessionStart
    from mini_letta.cli.terminal import Terminal
    from mini_letta.mcp_client.servers import McpServers
    from mini_letta.workspace import World


LEAVE_HINT = "(Ctrl-C again, or Ctrl-D, to leave)"
EXPAND_HINT = "  (Ctrl-O: the last tool call in full; /expand N: the Nth)"
EXPAND_HINT_PIPED = "  (/expand N shows the Nth tool call in full)"


def _read_line_factory(
    terminal: Terminal, world: World, bar: SessionBar, state: Callable[[], SlashState]
) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """The session's line reader and the approval prompt's (no history, no completion)."""
    if terminal.is_interactive():
        from prompt_toolkit import PromptSession

        from mini_letta.cli.commands.slash import COMMANDS, find_command
        from mini_letta.cli.repl_input import build_prompt_session
        from mini_letta.errors import MiniLettaError

        def arguments(name: str, typed: str) -> list[str]:
            command = find_command(name)
            if command is None or command.complete is None:
                return []
            try:
                return command.complete(state(), typed)
            except (MiniLettaError, OSError):  # a damaged listing offers nothing, says nothing
                return []

        from mini_letta.cli.commands.slash_session import expand_cmd

        session = build_prompt_session(
            world.home.input_history_file,
            world.cwd,
            bar.text,
            COMMANDS,
            arguments,
            on_expand=lambda: expand_cmd(state(), ""),
        )
        answers: PromptSession[str] = PromptSession()
        return (lambda prompt: session.prompt(prompt)), (lambda prompt: answers.prompt(prompt))
    plain = lambda prompt: _plain_readline(terminal)  # noqa: E731
    return plain, plain


def _plain_readline(terminal: Terminal) -> str:
    line = terminal.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def open_interactive(ctx: click.Context, start: SessionStart | None = None) -> None:
    from mini_letta.cli.repl_watch import open_watch
    from mini_letta.cli.session_start import SessionStart
    from mini_letta.cli.terminal import current_terminal
    from mini_letta.cli.world import current_world

    terminal = current_terminal()
    world = current_world()
    start = start or SessionStart()
    start = replace(start, resume=_resumed(world, terminal, start))
    with open_watch(world, terminal) as watch:
        _loop(world, terminal, watch, start)


def _resumed(world: World, terminal: Terminal, start: SessionStart) -> str | None:
    """The conversation `-r` names, or the one picked from a list when it names none (on a
    terminal only: without one it is a usage error, as `claude -p -r` is)."""
    from mini_letta.cli.options import PICK

    if start.resume is None or start.resume.strip() != PICK:
        return None if start.resume is None else start.resume.strip()
    if not terminal.is_interactive():
        raise click.UsageError(
            "-r/--resume without an ID picks from a list, which needs a terminal; give the ID "
            "(`mini-letta conversations list`), or -c for the last conversation"
        )
    from mini_letta.cli.conversation_picker import pick_conversation
    from mini_letta.conversations.registry import list_conversations
    from mini_letta.workspace import find_project_agent

    agent = find_project_agent(world, start.agent)
    if agent is None or not list_conversations(world.home, agent.id):
        echo_wrapped("No conversations to resume yet; starting the first one.", err=True)
        return None
    picked = pick_conversation(
        world.home, agent.id, None, lambda prompt: _prompted_line(terminal, prompt), None
    )
    if picked is None:
        raise click.exceptions.Exit(0)  # cancelled, or a number out of range: nothing starts
    return picked


def _prompted_line(terminal: Terminal, prompt: str) -> str:
    terminal.echo(prompt, err=True, nl=False)
    return _plain_readline(terminal)


def _loop(world: World, terminal: Terminal, watch: ReflectionWatch, start: SessionStart) -> None:
    from mini_letta.cli.approval import build_terminal_approver
    from mini_letta.cli.commands.slash import find_command, run_slash_command
    from mini_letta.cli.commands.slash_skills import skill_prompt
    from mini_letta.cli.commands.slash_state import SlashState
    from mini_letta.cli.headless import ChatSession, SessionRequest
    from mini_letta.cli.session_bar import SessionBar
    from mini_letta.cli.session_status import PendingNotice
    from mini_letta.cli.typing_hold import held_typing

    bar = SessionBar("", "", 0, running=lambda: watch.running)
    read_line, read_answer = _read_line_factory(terminal, world, bar, lambda: state)
    approve = build_terminal_approver(read_answer, terminal.stderr, world.cwd, terminal.columns)
    request = SessionRequest(
        world=world,
        agent_ref=start.agent,
        conversation_id=start.resume,
        new=start.new,
        model=start.model,
        approve=approve,
        reflection_watch=watch,
        answer_view=_answer_view(terminal),
        on_reflection=bar.saw,
        width=terminal.columns,
        number_tools=True,
    )
    request = replace(request, mcp=_open_mcp_servers(world))  # one set for every switch
    try:
        session = ChatSession(request, terminal.stdout, terminal.stderr)
    except BaseException:
        _close_mcp_servers(request)
        raise
    state = SlashState(request, session, watch, read_line, terminal)
    watch.agent_id = session.agent.id
    watch.on_outcome = bar.saw
    try:
        interrupted = False  # the last thing was a Ctrl-C: one more on an empty line leaves
        hinted = False  # how to expand a tool line was said (once a session)
        pending = PendingNotice()
        banner = f"mini-letta · agent {session.agent.name} · {session.setup.provider.handle} · "
        echo_wrapped(banner + "/help for commands, Ctrl-D to leave", err=True)
        if start.resume is not None:
            from mini_letta.cli.conversation_picker import announce_resumed

            announce_resumed(session.store, terminal.columns())
        while True:
            watch.print_finished()
            bar.follow(state.session)
            try:
                line = read_line("› ").strip()
            except EOFError:
                return
            except KeyboardInterrupt:
                if interrupted:
                    return
                interrupted = True
                echo_wrapped(LEAVE_HINT, err=True)
                continue
            interrupted = False
            watch.print_finished()  # a reflection that ended while we waited for this line
            if not line:
                continue
            attach = True
            if line.startswith("/"):
                builtin = find_command(line.partition(" ")[0]) is not None
                prompt = None if builtin else skill_prompt(line, state)  # `/NAME` runs a skill
                if prompt is None:
                    with held_typing(terminal):
                        goes_on = run_slash_command(line, state)
                    if not goes_on:
                        return
                    continue
                line, attach = prompt, False  # a skill's text is no prompt to scan for `@`
            with held_typing(terminal):  # the next message can be typed meanwhile
                interrupted = _turn(state, line, attach)
            if state.session.renderer.tool_count and not hinted:
                hinted = True
                echo_wrapped(
                    EXPAND_HINT if terminal.is_interactive() else EXPAND_HINT_PIPED, err=True
                )
            bar.usage = state.session.renderer.last_usage or bar.usage
            notice = pending.line(state.session.setup)
            if notice:
                echo_wrapped(notice, err=True)

    finally:  # the model client is closed; a conversation left empty is removed
        try:
            state.leave()
        finally:
            _close_mcp_servers(request)


def _open_mcp_servers(world: World) -> McpServers | None:
    from mini_letta.session import open_mcp_servers
    from mini_letta.settings import read_settings

    return open_mcp_servers(world, read_settings(world.home, world.project_dir))


def _close_mcp_servers(request: SessionRequest) -> None:
    if request.mcp is not None:
        request.mcp.close()


def _turn(state: SlashState, line: str, attach: bool) -> bool:
    """Run one turn with background lines held back; True when Ctrl-C cut it short. An
    `@path` that cannot be attached is one line, and nothing is sent."""
    from mini_letta.tools.attachments import AttachmentError

    state.watch.turn_running = True
    try:
        state.session.turn(line, attach=attach)
    except AttachmentError as exc:
        echo_wrapped(f"mini-letta: {exc}", err=True)
    except KeyboardInterrupt:
        echo_wrapped(f"\n(interrupted) {LEAVE_HINT}", err=True)
        return True
    finally:
        state.watch.turn_running = False
    return False


def _answer_view(terminal: Terminal) -> AnswerView | None:
    """On a terminal, answers end as markdown; piped, they stay plain text."""
    if not terminal.is_interactive():
        return None
    from mini_letta.cli.answer_view import AnswerView

    return AnswerView.for_terminal(terminal.stdout, terminal.environ)
