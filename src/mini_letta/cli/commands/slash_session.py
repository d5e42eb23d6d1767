"""Slash commands that change what the session runs with: model, agent, conversation,
permission mode; and those that look at the conversation's context (/compact, /context).

A switch builds a new session from a changed request (slash_state.py); a listing runs the CLI
command of the same job (`agents list`, `conversations list`) for the same output.
"""

from __future__ import annotations

from mini_letta.cli.commands.slash_state import SlashState, run_click
from mini_letta.cli.terminal import echo, echo_wrapped
from mini_letta.errors import MiniLettaError
from mini_letta.structs import replace


def model_cmd(state: SlashState, args: str) -> None:
    """Show the model, or switch this session to another one (the agent keeps its own)."""
    session = state.session
    if not args:
        echo_wrapped(f"model: {session.setup.provider.handle} (the agent's: {session.agent.model})")
        return
    if state.switch(replace(state.request, model=args.split()[0])):
        echo_wrapped(f"This session now uses {state.session.setup.provider.handle}.", err=True)


def agents_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.commands.agents import list_cmd

    run_click(list_cmd, [], "/agents")


def agent_cmd(state: SlashState, args: str) -> None:
    """Switch to another agent (name or id), in its current conversation here."""
    if not args:
        echo_wrapped(
            f"agent: {state.session.agent.name} ({state.session.agent.id}); /agents lists them"
        )
        return
    request = replace(state.request, agent_ref=args, conversation_id=None, new=False, model=None)
    if state.switch(request):
        session = state.session
        echo_wrapped(
            f"Now talking to {session.agent.name} on {session.setup.provider.handle}, "
            f"conversation {session.store.conversation_id}.",
            err=True,
        )


def conversations_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.commands.conversations import list_cmd

    run_click(list_cmd, ["--agent", state.session.agent.id], "/conversations")


def resume_cmd(state: SlashState, args: str) -> None:
    """Continue a conversation by id, or pick one from a numbered list."""
    target = args.split()[0] if args else _pick_conversation(state)
    if target is None:
        return
    if state.switch(replace(state.request, conversation_id=target, new=False)):
        from mini_letta.cli.conversation_picker import announce_resumed

        announce_resumed(state.session.store, state.terminal.columns())


def _pick_conversation(state: SlashState) -> str | None:
    from mini_letta.cli.conversation_picker import pick_conversation

    session = state.session
    return pick_conversation(
        session.request.world.home,
        session.agent.id,
        session.store.conversation_id,
        state.read_line,
        state.terminal.columns(),
    )


def new_cmd(state: SlashState, args: str) -> None:
    """A new conversation with the same agent and memory (/new and /clear)."""
    if state.switch(replace(state.request, conversation_id=None, new=True)):
        echo_wrapped(f"New conversation {state.session.store.conversation_id}.", err=True)


def permissions_cmd(state: SlashState, args: str) -> None:
    from mini_letta.tools.permissions import PERMISSION_MODES

    if not args:
        modes = ", ".join(PERMISSION_MODES)
        echo_wrapped(f"permission mode: {state.request.permission_mode} (modes: {modes})")
        return
    mode = args.split()[0]
    for known in PERMISSION_MODES:
        if known.lower() == mode.lower():
            if state.switch(replace(state.request, permission_mode=known)):
                echo_wrapped(f"Permission mode for this session: {known}.", err=True)
            return
    echo_wrapped(
        f"mini-letta: unknown permission mode {mode}; one of {', '.join(PERMISSION_MODES)}",
        err=True,
    )


def compact_cmd(state: SlashState, focus: str) -> None:
    """As `mini-letta compact [--focus TEXT]` on this conversation."""
    from mini_letta.context.compaction import CompactionSkipped
    from mini_letta.loop.pressure import compact_now

    try:
        result = compact_now(state.session.setup, focus or None)
    except MiniLettaError as exc:
        echo_wrapped(f"mini-letta: {exc}", err=True)
        return
    if result is None:
        echo_wrapped("Nothing to compact yet.", err=True)
    elif isinstance(result, CompactionSkipped):
        echo_wrapped(f"Not compacted: {result.reason}.", err=True)
    else:
        echo_wrapped(
            f"  ↻ compacted {result.messages_compacted} messages "
            f"({result.tokens_before} → {result.tokens_after} tokens)",
            err=True,
        )


def context_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.context_breakdown import measure_breakdown, render_breakdown

    try:
        breakdown = measure_breakdown(state.session.setup)
    except MiniLettaError as exc:
        echo_wrapped(f"mini-letta: {exc}", err=True)
        return
    echo("\n".join(render_breakdown(breakdown, state.terminal.columns())))


def expand_cmd(state: SlashState, args: str) -> None:
    """`/expand [N|all]` (and Ctrl-O): a tool call of the last turn in full, the last by default."""
    from mini_letta.cli.tool_detail import load_last_turn_calls, pick_calls, render_call_detail

    words = args.split()
    try:
        chosen = pick_calls(load_last_turn_calls(state.session.store), words[0] if words else "")
    except MiniLettaError as exc:
        echo_wrapped(f"mini-letta: {exc}", err=True)
        return
    width = state.terminal.columns()
    for detail in chosen:
        echo("\n".join(render_call_detail(detail, width)))
