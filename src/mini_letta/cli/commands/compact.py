"""`mini-letta compact`: summarise the oldest in-context messages of a conversation now."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from mini_letta.cli.options import agent_option, check_nonempty, context_window_option
from mini_letta.cli.terminal import echo

if TYPE_CHECKING:
    from mini_letta.loop.setup import TurnSetup


conversation_option = click.option(
    "--conversation",
    metavar="ID",
    callback=check_nonempty,
    help="The conversation (default: this project's current one).",
)


@click.command()
@agent_option
@conversation_option
@context_window_option
@click.option("--focus", metavar="TEXT", help="What the summary should keep above all.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def compact(
    agent: str | None,
    conversation: str | None,
    context_window: int | None,
    focus: str | None,
    as_json: bool,
) -> None:
    """Compact a conversation's context (the full log is kept)."""
    from mini_letta.context.compaction import CompactionSkipped
    from mini_letta.llm.base import ProviderInUse
    from mini_letta.loop.pressure import compact_now

    setup = _with_hooks(conversation_setup(agent, conversation, context_window))
    store = setup.store
    with ProviderInUse(setup.provider):
        result = compact_now(setup, focus)
    if as_json:
        data: dict[str, object] = {"conversationId": store.conversation_id, "compacted": False}
        if isinstance(result, CompactionSkipped):
            data["reason"] = result.reason
        elif result is not None:
            data.update(
                compacted=True,
                messagesCompacted=result.messages_compacted,
                tokensBefore=result.tokens_before,
                tokensAfter=result.tokens_after,
                summaryMessageId=result.summary.id,
            )
        echo(json.dumps(data, ensure_ascii=False))
    elif result is None:
        echo("Nothing to compact: the context holds only the latest exchange.")
    elif isinstance(result, CompactionSkipped):
        echo(f"Not compacted: {result.reason}.")
    else:
        echo(
            f"Compacted {result.messages_compacted} messages "
            f"({result.tokens_before} → {result.tokens_after} tokens); "
            f"summary {result.summary.id}."
        )


def conversation_setup(
    agent: str | None, conversation: str | None, context_window: int | None = None
) -> TurnSetup:
    """What a turn in the agent's conversation (default: this project's current one) would
    run with, for commands that act on a conversation outside a session."""
    from mini_letta.cli.world import current_world
    from mini_letta.conversations.registry import open_conversation
    from mini_letta.errors import NotFoundError
    from mini_letta.loop.setup import TurnOptions, build_turn_setup
    from mini_letta.settings import read_settings
    from mini_letta.workspace import resolve_agent

    world = current_world()
    record = resolve_agent(world, agent)
    if conversation is None:
        conversation = read_settings(world.home, world.project_dir).current_conversation_id(
            record.id
        )
        if conversation is None:
            raise NotFoundError(
                f"agent {record.name} has no current conversation here; pass --conversation ID"
            )
    store = open_conversation(world.home, record.id, conversation)
    return build_turn_setup(world, record, store, TurnOptions(context_window=context_window))


def _with_hooks(setup: TurnSetup) -> TurnSetup:
    """The conversation's setup with the user's hooks (PreCompact), when there are any."""
    from mini_letta.cli.world import current_world
    from mini_letta.hooks.runner import open_hook_runner
    from mini_letta.settings import read_settings
    from mini_letta.structs import replace

    world = current_world()
    files = read_settings(world.home, world.project_dir)
    hooks = open_hook_runner(files, setup.store, world.project_dir, world.environ)
    if hooks is None:
        return setup
    return replace(setup, tool_context=replace(setup.tool_context, hooks=hooks))
