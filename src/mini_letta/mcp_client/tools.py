"""A server's tools as ours: `mcp__<server>__<tool>`, checked, run like any tool.

A server is hostile input: a tool is kept only when its name fits the providers' rules (at most
64 characters of `[A-Za-z0-9_-]`, whole name included), its input schema is a JSON object
schema of bounded size, and its description is cut to a paragraph; a server offers at most
MAX_TOOLS. Every call is of kind `execute`, so the permission modes ask (or refuse) as for
Bash; the runner redacts and caps the result like any tool's (tools/base.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Protocol

from mini_letta.errors import MiniLettaError
from mini_letta.llm.base import ToolSpec
from mini_letta.mcp_client.connection import ListedTool
from mini_letta.tools.base import Tool, ToolContext, ToolKind, ToolResult

PREFIX = "mcp__"
MAX_TOOLS = 64  # per server
SCHEMA_CAP = 8_000  # characters of JSON: every byte of it is in every request
DESCRIPTION_CAP = 1_000
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ServerCaller(Protocol):
    """What a tool calls through: the session's servers (servers.py `McpServers`)."""

    def call(self, server: str, tool: str, args: dict[str, Any]) -> Any: ...


class McpCallError(MiniLettaError):
    """The server could not answer (gone, silent): the model reads it, the turn goes on."""


def tool_name(server: str, tool: str) -> str:
    return f"{PREFIX}{server}__{tool}"


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of `mcp__server__tool`, else None."""
    if not name.startswith(PREFIX):
        return None
    server, sep, tool = name[len(PREFIX) :].partition("__")
    return (server, tool) if sep and server and tool else None


class McpTool:
    """One server tool; `run` sends the call to the server through the session's servers."""

    kind: ToolKind = "execute"

    def __init__(self, spec: ToolSpec, server: str, tool: str, servers: ServerCaller) -> None:
        self.spec = spec
        self.server = server
        self.tool = tool
        self.servers = servers

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = self.servers.call(self.server, self.tool, args)
        text = render_result(result, limit=ctx.output_cap * 2)
        return ToolResult(text, bool(getattr(result, "is_error", False)))


def build_tools(
    servers: ServerCaller, listed: Mapping[str, list[ListedTool]]
) -> tuple[tuple[Tool, ...], list[str]]:
    """The kept tools, server by server in configuration order, and a line per tool dropped."""
    tools: list[Tool] = []
    problems: list[str] = []
    for server, entries in listed.items():
        kept = 0
        for entry in entries:
            spec = check_tool(server, entry)
            if isinstance(spec, str):
                problems.append(spec)
                continue
            if kept == MAX_TOOLS:
                problems.append(
                    f"MCP server {server!r} offers over {MAX_TOOLS} tools; the rest are left out"
                )
                break
            kept += 1
            tools.append(McpTool(spec, server, str(entry.name), servers))
    return tuple(tools), problems


def check_tool(server: str, entry: ListedTool) -> ToolSpec | str:
    """The tool's spec, or why it is left out (one line)."""
    raw_name = entry.name if isinstance(entry.name, str) else ""
    name = tool_name(server, raw_name)
    shown = repr(raw_name[:80])
    if not _TOOL_NAME.fullmatch(raw_name) or len(name) > 64:
        return f"MCP server {server!r}: tool {shown} left out (its name does not fit {name[:64]}…)"
    schema = entry.schema
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return f"MCP server {server!r}: tool {shown} left out (its input schema is not an object)"
    try:
        size = len(json.dumps(schema, ensure_ascii=False))
    except (TypeError, ValueError):
        return f"MCP server {server!r}: tool {shown} left out (its input schema is not JSON)"
    if size > SCHEMA_CAP:
        return f"MCP server {server!r}: tool {shown} left out (input schema of {size:,} characters)"
    text = entry.description if isinstance(entry.description, str) else ""
    description = _CONTROL.sub("", text).strip()[:DESCRIPTION_CAP]
    return ToolSpec(name, f"[MCP {server}] {description}".strip(), {"type": "object", **schema})


def render_result(result: Any, limit: int) -> str:
    """The call's content as text: text blocks as they are, anything else named in a line;
    structured content when there is no text; stops collecting past `limit` characters."""
    parts: list[str] = []
    size = 0
    for block in getattr(result, "content", None) or []:
        part = _block_text(block)
        parts.append(part)
        size += len(part)
        if size > limit:
            break
    if not parts and getattr(result, "structured_content", None) is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False)[: limit + 1])
    return "\n".join(parts) or "(no output)"


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {len(block.data) * 3 // 4:,} bytes]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        return str(text) if isinstance(text, str) else f"[resource: {resource.uri}]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}]"
    return f"[{kind or 'unknown'} content]"
