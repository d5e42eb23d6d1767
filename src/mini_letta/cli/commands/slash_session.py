"""Slash commands that change what the session runs with: model, agent, conversation,
permission mode; and those that look at the conversation's context (/compact, /context).

A switch builds a new session from a changed request (slash_state.py); a listing runs the CLI
command of the same job (`agents list`, `conversations list`) for the same output.
"""

from __future__ import annotations

from dataclasses import replace

from mini_letta.cli.commands.slash_state import SlashState, run_click
from mini_letta.cli.terminal import echo
from mini_letta.errors import MiniLettaError


def model_cmd(state: SlashState, args: str) -> None:
    """Show the model, or switch this session to another one (the agent keeps its own)."""
    session = state.session
    if not args:
        echo(f"model: {session.setup.provider.handle} (the agent's: {session.agent.model})")
        return
    if state.switch(replace(state.request, model=args.split()[0])):
        echo(f"This session now uses {state.session.setup.provider.handle}.", err=True)


def agents_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.commands.agents import list_cmd

    run_click(list_cmd, [], "/agents")


def agent_cmd(state: SlashState, args: str) -> None:
    """Switch to another agent (name or id), in its current conversation here."""
    if not args:
        echo(f"agent: {state.session.agent.name} ({state.session.agent.id}); /agents lists them")
        return
    request = replace(state.request, agent_ref=args, conversation_id=None, new=False, model=None)
    if state.switch(request):
        session = state.session
        echo(
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
        store = state.session.store
        echo(f"Resumed conversation {store.conversation_id} ({store.count()} messages).", err=True)


def _pick_conversation(state: SlashState) -> str | None:
    from mini_letta.conversations.registry import list_conversations

    session = state.session
    found = list_conversations(session.request.world.home, session.agent.id)
    if not found:
        echo("No conversations yet.", err=True)
        return None
    for number, conv in enumerate(found, 1):
        mark = "*" if conv.id == session.store.conversation_id else " "
        echo(f"{number:>3}{mark} {conv.id}  {conv.updated_at}  {conv.title or '(untitled)'}")
    try:
        answer = state.read_line("Resume which (number, empty to cancel)? ").strip()
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(found):
        echo(f"mini-letta: no conversation numbered {answer}; pick 1 to {len(found)}", err=True)
        return None
    return found[int(answer) - 1].id


def new_cmd(state: SlashState, args: str) -> None:
    """A new conversation with the same agent and memory (/new and /clear)."""
    if state.switch(replace(state.request, conversation_id=None, new=True)):
        echo(f"New conversation {state.session.store.conversation_id}.", err=True)


def permissions_cmd(state: SlashState, args: str) -> None:
    from mini_letta.tools.permissions import PERMISSION_MODES

    if not args:
        modes = ", ".join(PERMISSION_MODES)
        echo(f"permission mode: {state.request.permission_mode} (modes: {modes})")
        return
    mode = args.split()[0]
    for known in PERMISSION_MODES:
        if known.lower() == mode.lower():
            if state.switch(replace(state.request, permission_mode=known)):
                echo(f"Permission mode for this session: {known}.", err=True)
            return
    echo(
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
        echo(f"mini-letta: {exc}", err=True)
        return
    if result is None:
        echo("Nothing to compact yet.", err=True)
    elif isinstance(result, CompactionSkipped):
        echo(f"Not compacted: {result.reason}.", err=True)
    else:
        echo(
            f"  ↻ compacted {result.messages_compacted} messages "
            f"({result.tokens_before} → {result.tokens_after} tokens)",
            err=True,
        )


def context_cmd(state: SlashState, args: str) -> None:
    from mini_letta.cli.context_breakdown import measure_breakdown, render_breakdown

    try:
        breakdown = measure_breakdown(state.session.setup)
    except MiniLettaError as exc:
        echo(f"mini-letta: {exc}", err=True)
        return
    echo("\n".join(render_breakdown(breakdown)))
