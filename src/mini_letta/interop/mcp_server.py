"""`mini-letta mcp`: an agent's memory served over MCP (stdio), so other agents share it.

Claude Code, Cursor, Codex and any MCP client get tools to list, read, search, create and edit
memory files, and read-only resources for the `system/` files. Every change goes through the
same path as the agent's own `memory` tool (tools/memory_tool.py): validated, secrets refused,
under the memory lock, one commit per edit with the caller's reason. A refused edit is an MCP
tool error carrying the one-line reason. The `mcp` SDK is imported only here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from mini_letta import __version__
from mini_letta.home import Home

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "The long-term memory of a mini-letta agent: markdown files with a one-line description. "
    "system/ files are always in the agent's context. Read before you edit; every edit needs a "
    "reason, which becomes its git commit message."
)
SEARCH_LIMIT = 50
F = TypeVar("F", bound=Callable[..., Any])


def build_server(home: Home, agent_id: str, agent_name: str) -> MCPServer:
    """The server for one agent's memory folder (a git repository)."""
    from mcp.server.mcpserver import MCPServer

    server: MCPServer = MCPServer(
        f"mini-letta memory ({agent_name})", instructions=INSTRUCTIONS, version=__version__
    )
    _add_tools(server, home, agent_id)
    _add_system_resources(server, home.memory_dir(agent_id))
    return server


def _refusals_as_tool_errors(fn: F) -> F:
    """Our one-line refusals reach the client as tool errors; anything else stays a bug."""
    from mcp.server.mcpserver.exceptions import ToolError

    from mini_letta.errors import MiniLettaError

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MiniLettaError as exc:
            raise ToolError(str(exc)) from exc

    return cast(F, wrapper)


def _add_tools(server: MCPServer, home: Home, agent_id: str) -> None:
    memory_dir = home.memory_dir(agent_id)
    tool = server.tool

    @tool(description="List every memory file with its description.")
    @_refusals_as_tool_errors
    def memory_list() -> str:
        from mini_letta.memory.edits import list_memory_tree

        lines = [f"{path} — {description}" for path, description in list_memory_tree(memory_dir)]
        return "\n".join(lines) or "(memory is empty)"

    @tool(description="Read one memory file (frontmatter and body).")
    @_refusals_as_tool_errors
    def memory_read(path: str) -> str:
        from mini_letta.memory.edits import read_memory_file

        return read_memory_file(memory_dir, path)

    @tool(description="Search the memory files (BM25; Chinese and English): path:line: text.")
    @_refusals_as_tool_errors
    def memory_search(query: str, limit: int = 20) -> str:
        from mini_letta.memory.secrets import redact_secrets
        from mini_letta.search.recall import Recall

        hits = Recall(home, agent_id).search_memory(query, max(1, min(limit, SEARCH_LIMIT)))
        lines = (f"{h.path}:{h.line}: {redact_secrets(h.text)}" for h in hits)
        return "\n".join(lines) or "no matches"

    @tool(description="Create a memory file; `reason` becomes the commit message.")
    @_refusals_as_tool_errors
    def memory_create(path: str, description: str, content: str, reason: str) -> str:
        args = {"path": path, "description": description, "content": content}
        done = _edit(memory_dir, "create", args, reason)
        return _with_budget_notice(home, agent_id, done, [path])

    @tool(
        description=(
            "Change a memory file. command: str_replace (old_str, new_str), insert (content, "
            "optional insert_line), delete, rename (new_path), update_description (description)."
        )
    )
    @_refusals_as_tool_errors
    def memory_edit(
        command: str,
        path: str,
        reason: str,
        old_str: str | None = None,
        new_str: str | None = None,
        content: str | None = None,
        insert_line: int | None = None,
        new_path: str | None = None,
        description: str | None = None,
    ) -> str:
        given = {
            "path": path,
            "old_str": old_str,
            "new_str": new_str,
            "content": content,
            "insert_line": insert_line,
            "new_path": new_path,
            "description": description,
        }
        args = {k: v for k, v in given.items() if v is not None}
        done = _edit(memory_dir, command, args, reason)
        return _with_budget_notice(home, agent_id, done, [new_path or path])


def _edit(memory_dir: Path, command: str, args: dict[str, Any], reason: str) -> str:
    from mini_letta.errors import MemoryEditError
    from mini_letta.tools.memory_tool import apply_and_commit

    if command == "view" or command not in _EDIT_COMMANDS:
        raise MemoryEditError(f"unknown command {command!r} (allowed: {', '.join(_EDIT_COMMANDS)})")
    if not reason.strip():
        raise MemoryEditError("'reason' must say why (it becomes the commit message)")
    path = args.get("path")
    if command in ("delete", "rename") and isinstance(path, str) and _is_system(path):
        raise MemoryEditError(
            f"memory {command}: {path.strip()} is a system/ file, which is never deleted or "
            "moved from outside (only its owner, by hand: `mini-letta memory edit`)"
        )
    return apply_and_commit(memory_dir, command, {"command": command, **args}, reason.strip())


def _with_budget_notice(home: Home, agent_id: str, result: str, paths: list[str]) -> str:
    """The edit's result, and a warning when it left memory over its budget."""
    from mini_letta.agents.registry import load_agent
    from mini_letta.reflection.gate.budget_notice import over_budget_notices

    agent = load_agent(home, agent_id)
    no_project = home.root  # an MCP client's project is not ours: home and agent settings only
    notices = over_budget_notices(home, no_project, agent, paths)
    return "\n".join([result, *(f"warning: {notice}" for notice in notices)])


def _is_system(path: str) -> bool:
    return path.strip().lstrip("./").startswith("system/")


_EDIT_COMMANDS = ("create", "str_replace", "insert", "delete", "rename", "update_description")


def _add_system_resources(server: MCPServer, memory_dir: Path) -> None:
    """One read-only resource per `system/` file, read afresh on every request."""
    from mini_letta.memory.edits import list_memory_tree

    for path, description in list_memory_tree(memory_dir):
        if path.startswith("system/"):
            server.resource(
                f"memory://{path}", name=path, description=description, mime_type="text/markdown"
            )(_reader(memory_dir, path))


def _reader(memory_dir: Path, path: str) -> Callable[[], str]:
    def read() -> str:
        from mini_letta.memory.edits import read_memory_file

        return read_memory_file(memory_dir, path)

    return read
