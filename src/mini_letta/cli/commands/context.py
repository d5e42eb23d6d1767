"""`mini-letta context`: where a conversation's context window goes (`/context` in a session)."""

from __future__ import annotations

import json

import click

from mini_letta.cli.commands.compact import conversation_option, conversation_setup
from mini_letta.cli.options import agent_option, context_window_option
from mini_letta.cli.terminal import current_terminal, echo


@click.command()
@agent_option
@conversation_option
@context_window_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def context(
    agent: str | None, conversation: str | None, context_window: int | None, as_json: bool
) -> None:
    """Show the context window's parts: system prompt, memory, tools, messages, free space."""
    from mini_letta.cli.context_breakdown import measure_breakdown, render_breakdown
    from mini_letta.cli.render import usage_json
    from mini_letta.llm.base import ProviderInUse

    setup = conversation_setup(agent, conversation, context_window)
    with ProviderInUse(setup.provider):  # only its window is read: no SDK, no connection
        breakdown = measure_breakdown(setup)
    if not as_json:
        echo("\n".join(render_breakdown(breakdown, current_terminal().columns())))
        return
    data = {
        "conversationId": setup.store.conversation_id,
        "window": breakdown.window,
        "compactionThreshold": breakdown.threshold,
        "parts": {name: tokens for name, tokens in breakdown.parts},
        "used": breakdown.used,
        "free": breakdown.free,
        "memoryFiles": [
            {"path": path, "tokens": tokens} for path, tokens in breakdown.memory_files
        ],
        "usage": {**usage_json(breakdown.usage), "modelCalls": breakdown.model_calls},
    }
    echo(json.dumps(data, ensure_ascii=False, indent=2))
