"""The MCP servers an editor sends with `session/new` and `session/load`, for that session.

ACP's `McpServer` entries: stdio (`name`, `command`, `args`, `env` as `{name, value}` pairs),
which every agent must take, and `"type": "http"` (`url`, `headers` as pairs), which
`initialize` advertises (`mcpCapabilities.http`). `sse` and `acp` are not advertised: such an
entry is one warning line and left out. They go through the configured servers' checks
(mcp_client/config.py: a name fit for `mcp__<server>__<tool>`, bounded strings, an http(s) URL)
with their values taken as sent, and join the configured servers in one `McpServers` the
session owns: started at its first model request, closed with it. An editor's server hides a
configured one of its name. Like settings.json's, they are the user's own configuration (the
editor's settings), so they need no approval; their calls ask as Bash's do, through the editor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta.errors import ConfigError
from mini_letta.mcp_client.config import SERVER_NAME, ServerSpec, parse_entry
from mini_letta.settings import McpServerEntry
from mini_letta.structs import replace

if TYPE_CHECKING:
    from mini_letta.mcp_client.servers import McpServers
    from mini_letta.workspace import World

SOURCE = Path("the editor's mcpServers")
TRANSPORTS = ("stdio", "http")  # what initialize advertises: stdio is every agent's
MAX_EDITOR_SERVERS = 32  # a session's processes stay countable whatever the editor sends
_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def editor_server_specs(entries: Sequence[object]) -> tuple[list[ServerSpec], list[str]]:
    """Each entry (an `acp.schema` model or its wire JSON) as a server to start, and a line
    for each one left out."""
    specs: list[ServerSpec] = []
    problems: list[str] = []
    if len(entries) > MAX_EDITOR_SERVERS:
        problems.append(
            f"the editor sent {len(entries)} MCP servers; the first {MAX_EDITOR_SERVERS} are "
            "kept, the rest left out"
        )
    for entry in entries[:MAX_EDITOR_SERVERS]:
        raw = _wire(entry)
        shown = str(raw.get("name", ""))[:80]
        name = _NOT_A_NAME.sub("_", shown).strip("_")[:32]
        kind = raw.get("type", "stdio")
        if kind not in TRANSPORTS:
            problems.append(
                f"MCP server {shown!r} from the editor: type {str(kind)[:20]!r} is not supported "
                "(stdio or http); going on without it"
            )
            continue
        if not SERVER_NAME.fullmatch(name) or any(spec.name == name for spec in specs):
            problems.append(
                f"MCP server {shown!r} from the editor: its name is empty or repeated "
                f"(as {name!r}); going on without it"
            )
            continue
        try:
            spec = parse_entry(McpServerEntry(name, _entry(raw), "user", SOURCE), {}, expand=False)
        except ConfigError as exc:
            problems.append(f"{exc}; going on without it")
            continue
        specs.append(replace(spec, scope="editor"))
    return specs, problems


def editor_session_servers(
    world: World, specs: Sequence[ServerSpec], warn: Callable[[str], None]
) -> McpServers | None:
    """The configured servers and the editor's, for a session that owns them (None: none)."""
    from mini_letta.mcp_client.sdk import McpSdkMissingError, require_sdk
    from mini_letta.mcp_client.servers import configured_servers
    from mini_letta.settings import read_settings

    extra = tuple(specs)
    try:
        require_sdk("the editor's MCP servers")
    except McpSdkMissingError as exc:  # the editor sends them unasked: the session goes on
        warn(f"{exc}; going on without them")
        extra = ()
    files = read_settings(world.home, world.project_dir)
    return configured_servers(files, world.environ, cwd=world.project_dir, warn=warn, extra=extra)


def _wire(entry: object) -> Mapping[str, Any]:
    """The entry as the protocol spells it (the SDK hands us its pydantic models)."""
    dump = getattr(entry, "model_dump", None)
    if callable(dump):
        data = dump(by_alias=True, exclude_none=True)
        return data if isinstance(data, dict) else {}
    return entry if isinstance(entry, Mapping) else {}


def _entry(raw: Mapping[str, Any]) -> dict[str, Any]:
    """ACP's entry in the configuration files' shape: its `{name, value}` lists as objects."""
    if raw.get("type", "stdio") == "http":
        return {"type": "http", "url": raw.get("url"), "headers": _pairs(raw.get("headers"))}
    env = _pairs(raw.get("env"))
    return {"command": raw.get("command"), "args": raw.get("args", []), "env": env}


def _pairs(value: object) -> dict[str, object] | object:
    """`[{"name": …, "value": …}]` as an object; anything else as it is, for the checks to
    refuse."""
    if not isinstance(value, list):
        return {} if value is None else value
    if not all(isinstance(pair, Mapping) and isinstance(pair.get("name"), str) for pair in value):
        return value
    return {pair["name"]: pair.get("value") for pair in value}
