"""`mini-letta mcp`: serve an agent's memory to other tools over MCP on stdio."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mini_letta.cli.options import agent_option

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from mini_letta.workspace import World


@click.command("mcp")
@agent_option
def mcp_cmd(agent: str | None) -> None:
    """Serve this agent's memory over MCP (stdio) for Claude Code, Cursor, Codex, ..."""
    from mini_letta.cli.world import current_world
    from mini_letta.mcp_client.sdk import require_sdk

    require_sdk("`mini-letta mcp`")
    memory_server(current_world(), agent).run("stdio")  # until the client closes stdin


def memory_server(world: World, agent: str | None) -> MCPServer:
    """The server `mcp` runs in `world`: the memory of `agent` (a name or id), else of the
    folder's project agent; NoAgentError, before any serving, when there is none."""
    from mini_letta.interop.mcp_server import build_server
    from mini_letta.workspace import resolve_agent

    record = resolve_agent(world, agent)
    return build_server(world.home, record.id, record.name)
