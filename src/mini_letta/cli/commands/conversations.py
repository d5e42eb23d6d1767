"""`mini-letta conversations list|show ID|repair ID`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from mini_letta.cli.fit import fit_line, text_columns, wrap_lines
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.workspace import World


@click.group()
def conversations() -> None:
    """Inspect an agent's conversations."""


@conversations.command("list")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(agent: str | None, as_json: bool) -> None:
    """List conversations, most recent first (* marks this project's current one)."""
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.registry import scan_conversations
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.settings import read_settings
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    found, damaged = scan_conversations(world.home, record.id)
    if as_json:
        entries = [conv.to_json() for conv in found] + [bad.to_json() for bad in damaged]
        echo(json.dumps(entries, ensure_ascii=False, indent=2))
        return
    if not found and not damaged:
        echo("No conversations yet.")
        return
    current = read_settings(world.home, world.project_dir).current_conversation_id(record.id)
    width = current_terminal().columns()
    for conv in found:
        count = ConversationStore(record.id, conv.id, world.home).count()
        mark = "*" if conv.id == current else " "
        line = f"{mark} {conv.id}  {conv.updated_at}  {count:>6} msgs  {conv.title}"
        if width is not None and text_columns(line) > width:  # a narrow window: two rows
            detail = f"    {conv.updated_at[:16]}  {count} msgs  {conv.title}"
            line = "\n".join([fit_line(f"{mark} {conv.id}", width), fit_line(detail, width)])
        echo(line)
    for line in wrap_lines([bad.render() for bad in damaged], width):
        echo(line)


@conversations.command("show")
@click.argument("conversation_id", metavar="ID")
@agent_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "-n",
    "--last",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many of the latest messages to show.",
)
def show_cmd(conversation_id: str, agent: str | None, as_json: bool, last: int) -> None:
    """Show a conversation and its latest messages."""
    from mini_letta.cli.render import describe_usage, usage_json
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.registry import open_conversation
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    store = open_conversation(world.home, record.id, conversation_id)
    conv = store.load_record()
    tail = store.tail(last) if last else []
    size = _context_size(world, record, store)
    usage, calls = store.total_usage()
    if as_json:
        data = {
            **conv.to_json(),
            "messageCount": store.count(),
            "usage": {**usage_json(usage), "modelCalls": calls},
            "contextTokens": size[0] if isinstance(size, tuple) else None,
            "contextWindow": size[1] if isinstance(size, tuple) else None,
            "messages": [message.to_json() for _, message in tail],
        }
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    echo(f"id:       {conv.id}")
    echo(f"title:    {conv.title}")
    echo(f"created:  {conv.created_at}")
    echo(f"messages: {store.count()}")
    if isinstance(size, tuple):
        echo(f"context:  about {size[0]} tokens in context, window {size[1]} tokens")
    else:
        echo(f"context:  unknown ({size})")
    echo(f"usage:    {describe_usage(usage, calls)}")
    for _, message in tail:
        text = message.content.replace("\n", " ")
        if message.tool_calls:
            text += " " + " ".join(f"[{call.name}]" for call in message.tool_calls)
        echo(f"  {message.role:>9}: {text[:200]}")


@conversations.command("repair")
@click.argument("conversation_id", metavar="ID")
@agent_option
def repair_cmd(conversation_id: str, agent: str | None) -> None:
    """Rebuild a corrupt conversation.json or compaction flag from the log (copies are kept)."""
    from mini_letta.cli.world import current_world
    from mini_letta.context.compaction_flag import repair_compaction_flag
    from mini_letta.conversations.registry import open_conversation
    from mini_letta.conversations.repair import repair_record
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent, check_memory=False)
    store = open_conversation(world.home, record.id, conversation_id)
    with store.lock():
        moved = [repair_record(store, world.clock), repair_compaction_flag(store, world.clock)]
    done = [path for path in moved if path is not None]
    if not done:
        echo(f"Nothing to repair in {store.conversation_id}.")
    for path in done:
        name = path.name.split(".corrupt-")[0]
        echo(f"Rebuilt {name} from the log; the corrupt copy is kept as {path}")


def _context_size(
    world: World, agent: AgentRecord, store: ConversationStore
) -> tuple[int, int] | str:
    """(estimated in-context tokens, window), or why they cannot be known (say, a missing key)."""
    from mini_letta.errors import MiniLettaError
    from mini_letta.llm.base import ProviderInUse
    from mini_letta.loop.pressure import measure_context
    from mini_letta.loop.setup import TurnOptions, build_turn_setup

    try:
        setup = build_turn_setup(world, agent, store, TurnOptions())
        with ProviderInUse(setup.provider):
            measure = measure_context(setup)
    except MiniLettaError as exc:
        return str(exc)
    return measure.tokens, measure.window
