"""`mini-letta mcp`: serve an agent's memory to other tools over MCP on stdio."""

from __future__ import annotations

import click

from mini_letta.cli.options import agent_option


@click.command("mcp")
@agent_option
def mcp_cmd(agent: str | None) -> None:
    """Serve this agent's memory over MCP (stdio) for Claude Code, Cursor, Codex, ..."""
    from mini_letta.cli.world import current_world
    from mini_letta.interop.mcp_server import serve_memory
    from mini_letta.mcp_client.sdk import require_sdk
    from mini_letta.workspace import resolve_agent

    require_sdk("`mini-letta mcp`")
    world = current_world()
    record = resolve_agent(world, agent)
    serve_memory(world.home, record.id, record.name)
