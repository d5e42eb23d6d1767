"""Slash commands that look at or change the agent's memory and reflection history.

Each one runs the CLI command of the same job (`memory ...`, `reflections ...`, `status`,
`sleeptime`) for the session's agent, so the session and the CLI print the same thing and
fail the same way.
"""

from __future__ import annotations

from mini_letta.cli.commands.slash_state import SlashState, run_click, split_args
from mini_letta.cli.fit import wrap_lines
from mini_letta.cli.terminal import echo, echo_wrapped


def memory_cmd(state: SlashState, args: str) -> None:
    """`/memory` is the tree; `/memory show|log|diff|edit|status|...` the subcommand."""
    from mini_letta.cli.commands.memory import memory

    argv = split_args(args)
    if argv is None:
        return
    run_click(memory, [*(argv or ["tree"]), "--agent", state.session.agent.id], "/memory")


def reflections_cmd(state: SlashState, args: str) -> None:
    """`/reflections` lists runs; `/reflections show RUN-ID` shows one with its diff."""
    from mini_letta.cli.commands.reflections import reflections

    argv = split_args(args)
    if argv is None:
        return
    run_click(reflections, [*(argv or ["list"]), "--agent", state.session.agent.id], "/reflections")


def undo_cmd(state: SlashState, args: str) -> None:
    """`/undo [RUN-ID|REV]`: as `mini-letta memory undo`."""
    from mini_letta.cli.commands.memory import undo_cmd as memory_undo

    argv = split_args(args)
    if argv is None:
        return
    run_click(memory_undo, [*argv, "--agent", state.session.agent.id], "/undo")


def search_cmd(state: SlashState, args: str) -> None:
    """`/search QUERY [--memory] [--role ...] ...`: as `mini-letta search` for this agent."""
    from mini_letta.cli.commands.recall import search

    argv = split_args(args)
    if argv is None:
        return
    if not argv:
        echo_wrapped(
            "mini-letta: /search needs a query, e.g. /search 缩进 or /search pnpm --memory",
            err=True,
        )
        return
    run_click(search, [*argv, "--agent", state.session.agent.id], "/search")


def status_cmd(state: SlashState, args: str) -> None:
    """The agent's health (`mini-letta status`), then this conversation's own numbers."""
    from mini_letta.cli.commands.status import status
    from mini_letta.cli.session_status import status_lines

    run_click(status, ["--agent", state.session.agent.id], "/status")
    echo("\n".join(wrap_lines(status_lines(state.session.setup), state.terminal.columns(), 12)))


def recompile_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.session_status import request_recompile

    echo_wrapped(request_recompile(state.session.setup), err=True)


def reflect_cmd(state: SlashState, instruction: str) -> None:
    """Reflect on this conversation now, in a worker the session watches; the trigger
    setting and the Windows switch do not apply to an explicit request."""
    from mini_letta.cli.background import spawn_reflection_worker

    session = state.session
    proc = spawn_reflection_worker(
        session.request.world,
        session.agent.id,
        session.store.conversation_id,
        "manual",
        instruction or None,
    )
    state.watch(proc)
    echo_wrapped("  ☾ reflecting in the background; the outcome appears when it is done.", err=True)


def sleeptime_cmd(state: SlashState, args: str) -> None:
    """`mini-letta sleeptime` for the session's agent: the same flags, output and errors."""
    from mini_letta.cli.commands.sleeptime import sleeptime

    argv = split_args(args)
    if argv is None:
        return
    if "--agent" not in argv:
        argv += ["--agent", state.session.agent.id]
    run_click(sleeptime, argv, "/sleeptime")


def palace_cmd(state: SlashState, args: str) -> None:
    """`/palace [--open] [-o FILE]`: as `mini-letta palace` for the session's agent."""
    from mini_letta.cli.commands.palace import palace

    argv = split_args(args)
    if argv is None:
        return
    if "--serve" in argv:
        echo_wrapped("mini-letta: /palace cannot --serve inside the session; run "
                     "`mini-letta palace --serve` in another terminal", err=True)  # fmt: skip
        return
    run_click(palace, [*argv, "--agent", state.session.agent.id], "/palace")
