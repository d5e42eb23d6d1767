"""The MCP server applies the gate's rules to system/ files: no client deletes or renames one."""

from __future__ import annotations

import asyncio

import pytest

from mini_letta.memory.edits import read_memory_file
from support.agents import fresh_agent
from support.groups import MCP, NO_MCP

pytestmark = [MCP, NO_MCP]


def _call(server, name, args):
    """(refused, text): in-process, the server raises a tool error the transport would send."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        result = asyncio.run(server.call_tool(name, args))
    except ToolError as exc:
        return True, str(exc)
    return False, "".join(getattr(part, "text", "") for part in result.content)


@pytest.fixture
def served(world):
    from mini_letta.interop.mcp_server import build_server

    agent = fresh_agent(world)
    return build_server(world.home, agent.id, agent.name), world.home.memory_dir(agent.id)


@pytest.mark.parametrize(
    "edit",
    [
        {"command": "delete", "path": "system/human.md"},
        {"command": "rename", "path": "system/human.md", "new_path": "notes/human.md"},
        {"command": "delete", "path": "system/persona.md"},
    ],
)
def test_an_mcp_client_cannot_delete_or_move_a_system_file(served, edit):
    server, memory = served
    before = read_memory_file(memory, edit["path"])
    failed, text = _call(server, "memory_edit", {**edit, "reason": "tidy up"})
    assert failed and "system/" in text and "never" in text
    assert read_memory_file(memory, edit["path"]) == before


def test_an_mcp_client_can_still_delete_its_own_notes(served):
    server, memory = served
    create = {"path": "notes/a.md", "description": "a", "content": "x", "reason": "add"}
    assert not _call(server, "memory_create", create)[0]
    failed, _ = _call(
        server, "memory_edit", {"command": "delete", "path": "notes/a.md", "reason": "done"}
    )
    assert not failed and not (memory / "notes" / "a.md").exists()
