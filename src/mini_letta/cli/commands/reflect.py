"""`mini-letta reflect` (alias `dream`): reflect on a conversation now.

Prints one `☾ reflection` line on stderr. Exit 0 for merged, no_changes and no_payload, else 1.
Several `--conversation`s or `--recent N` make one multi-conversation run. The PreReflect and
PostReflect hooks run around every launch: the run, or each slice of `--all`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mini_letta.cli.options import agent_option, check_nonempty
from mini_letta.cli.terminal import echo

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.workspace import World

_HELP = "Reflect now on the current conversation (or --conversation ID) and merge into memory."


@click.command("reflect", help=_HELP)
@agent_option
@click.option(
    "--conversation",
    "conversations",
    metavar="ID",
    multiple=True,
    callback=check_nonempty,
    help="Reflect on this conversation (repeat it for several in one run).",
)
@click.option("--recent", type=click.IntRange(min=1), metavar="N", help="The N latest ones.")
@click.option(
    "-i",
    "--instruction",
    metavar="TEXT",
    callback=check_nonempty,
    help="An extra instruction for this run.",
)
@click.option("--model", metavar="MODEL", help="The reflection model for this run only.")
@click.option("--base-url", metavar="URL", help="The reflection model's server for this run.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the next slice, its payload path and the whole backlog's estimate; send nothing.",
)
@click.option(
    "--all",
    "whole",
    is_flag=True,
    help="Reflect the whole backlog, slice by slice with progress; Ctrl-C stops after a slice.",
)
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(("text", "stream-json")),
    default="text",
    help="stream-json: a JSON event per slice of --all on stdout.",
)
def reflect(
    agent: str | None,
    conversations: tuple[str, ...],
    recent: int | None,
    instruction: str | None,
    model: str | None,
    base_url: str | None,
    dry_run: bool,
    whole: bool,
    output_format: str,
) -> None:
    from mini_letta.cli.reflection_view import render_outcome_line, show_waiting_outcomes
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import (
        LaunchOptions,
        ReflectionOutcome,
        drained_after,
        launch,
        launch_many,
        open_reflect_hooks,
        skip_message,
    )
    from mini_letta.workspace import resolve_agent

    if recent is not None and conversations:
        raise click.UsageError("use --recent or --conversation, not both")
    multi = recent is not None or len(conversations) > 1
    if dry_run and multi:
        raise click.UsageError("--dry-run works on one conversation")
    if whole and multi:
        raise click.UsageError("--all works on one conversation")
    world = current_world()
    record = resolve_agent(world, agent)
    show_waiting_outcomes(world, record.id)
    stores = _conversations(world, record.id, conversations, recent)
    options = LaunchOptions(
        trigger="manual",
        instruction=instruction,
        model=model or None,
        base_url=base_url or None,
        hooks=open_reflect_hooks(world, stores[0]) if stores and not dry_run else None,
    )
    if dry_run and stores and _print_preview(world, record, stores[0]):
        return
    if whole and stores and not dry_run:
        from mini_letta.cli.backlog_view import reflect_all_command

        reflect_all_command(world, record, stores[0], options, output_format)
        return
    # Launches queued while this run held the lease run after its line; the next command
    # shows their outcomes.
    with drained_after(world, record.id):
        if not stores or dry_run:
            outcome = ReflectionOutcome(skip_message("no_payload"), skip_reason="no_payload")
        elif multi:
            outcome = launch_many(world, record, stores, options)
        else:
            outcome = launch(world, record, stores[0], options)
        echo(render_outcome_line(outcome), err=True)
    if not outcome.ok:
        raise click.exceptions.Exit(1)


def _print_preview(world: World, agent: AgentRecord, store: ConversationStore) -> bool:
    from mini_letta.reflection.api import preview

    payload = preview(world, agent, store)
    if payload is None:
        return False
    echo(
        f"conversation {store.conversation_id}: lines {payload.start_line}-"
        f"{payload.slice_end_line - 1}, {len(payload.messages)} message(s), "
        f"{payload.steps} step(s), about {payload.tokens} tokens, {payload.start_message_id} .. "
        f"{payload.end_message_id}"
        + (" (the first chunk: the rest follows in further runs)" if payload.truncated else "")
    )
    echo(f"payload: {payload.path}")
    from mini_letta.cli.backlog_view import render_plan
    from mini_letta.reflection.api import plan_backlog

    echo(render_plan(plan_backlog(world, agent, store)))
    return True


dream = click.Command(
    "dream", callback=reflect.callback, params=reflect.params, help="Alias of reflect. " + _HELP
)


def _conversations(
    world: World, agent_id: str, ids: tuple[str, ...], recent: int | None
) -> list[ConversationStore]:
    """The conversations to reflect on, without creating one (nothing to reflect on is fine)."""
    from mini_letta.conversations.registry import list_conversations, open_conversation
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.settings import read_settings

    if recent is not None:
        found = list_conversations(world.home, agent_id)[:recent]
        return [ConversationStore(agent_id, conv.id, world.home) for conv in found]
    if ids:
        unique = list(dict.fromkeys(i.strip() for i in ids))
        return [open_conversation(world.home, agent_id, i) for i in unique]
    current = read_settings(world.home, world.project_dir).current_conversation_id(agent_id)
    store = ConversationStore(agent_id, current, world.home) if current else None
    return [store] if store is not None and store.exists() else []
