"""`mini-letta reflect` (alias `dream`): reflect on a conversation now (SPEC §7.6).

Prints one `☾ reflection` line on stderr. Exit 0 for merged, no_changes and no_payload, else 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mini_letta.cli.options import agent_option

if TYPE_CHECKING:
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.workspace import World

_HELP = "Reflect now on the current conversation (or --conversation ID) and merge into memory."


@click.command("reflect", help=_HELP)
@agent_option
@click.option("--conversation", metavar="ID", help="Reflect on this conversation.")
@click.option("-i", "--instruction", metavar="TEXT", help="An extra instruction for this run.")
@click.option("--dry-run", is_flag=True, help="Print the slice and its payload path; run nothing.")
def reflect(
    agent: str | None, conversation: str | None, instruction: str | None, dry_run: bool
) -> None:
    from mini_letta.cli.reflection_view import render_outcome_line
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.outcome import ReflectionOutcome, skip_message
    from mini_letta.reflection.run import LaunchOptions, launch_reflection, preview_reflection
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent)
    store = _conversation(world, record.id, conversation)
    if store is None:
        outcome = ReflectionOutcome(skip_message("no_payload"), skip_reason="no_payload")
    elif dry_run:
        payload = preview_reflection(world, record, store)
        if payload is not None:
            click.echo(
                f"conversation {store.conversation_id}: lines {payload.start_line}-"
                f"{payload.end_snapshot_line - 1}, {len(payload.messages)} message(s), "
                f"{payload.steps} step(s), {payload.start_message_id} .. {payload.end_message_id}"
                + (" (the rest waits for the next run)" if payload.truncated else "")
            )
            click.echo(f"payload: {payload.path}")
            return
        outcome = ReflectionOutcome(skip_message("no_payload"), skip_reason="no_payload")
    else:
        options = LaunchOptions(trigger="manual", instruction=instruction)
        outcome = launch_reflection(world, record, store, options)
    click.echo(render_outcome_line(outcome), err=True)
    if not outcome.ok:
        raise click.exceptions.Exit(1)


dream = click.Command(
    "dream", callback=reflect.callback, params=reflect.params, help="Alias of reflect. " + _HELP
)


def _conversation(
    world: World, agent_id: str, conversation_id: str | None
) -> ConversationStore | None:
    """The conversation to reflect on, without creating one (nothing to reflect on is fine)."""
    from mini_letta.conversations.registry import open_conversation
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.settings import load_project_settings, project_agent_settings

    if conversation_id:
        return open_conversation(world.home, agent_id, conversation_id)
    current = project_agent_settings(load_project_settings(world.cwd), agent_id).get(
        "conversationId"
    )
    store = ConversationStore(agent_id, current, world.home) if current else None
    return store if store is not None and store.exists() else None
