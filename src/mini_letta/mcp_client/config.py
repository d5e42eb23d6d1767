"""MCP server definitions in Claude Code's format, checked, and `mcp-servers add|remove|approve`.

An entry is stdio (`command`, `args`, `env`) or streamable HTTP (`"type": "http"`, `url`,
`headers`); `${VAR}` and `${VAR:-default}` in any string come from the caller's environment.
A project's .mcp.json arrives with a clone and names commands to run, so its servers start only
once approved on this machine: the approval is the entry's fingerprint in the project's
settings.local.json, and an edited entry needs approving again. settings.json is the user's own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from mini_letta.errors import ConfigError, InvalidValueError, NotFoundError
from mini_letta.home import Home
from mini_letta.settings import (
    McpScope,
    McpServerEntry,
    Settings,
    update_global_settings,
    update_project_mcp,
    update_project_settings,
)
from mini_letta.structs import Struct, field, replace

Transport = Literal["stdio", "http"]
ServerScope = McpScope | Literal["editor"]  # editor: sent by an ACP client for its session
# Providers take tool names of at most 64 characters from [A-Za-z0-9_-]: `mcp__<server>__<tool>`.
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_STRING_CAP = 4_096  # a command, an argument, a URL or a header value


class ServerSpec(Struct, frozen=True):
    """One server as it will be started, its `${VAR}`s expanded."""

    name: str
    transport: Transport
    scope: ServerScope
    source: Path
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    fingerprint: str = ""
    approved: bool = True  # a project server not approved here is listed, never started

    def target(self) -> str:
        """What `list` shows: the command line or the URL (never the env or headers)."""
        if self.transport == "http":
            return self.url
        return " ".join([self.command, *self.args])


class ServerList(Struct, frozen=True):
    servers: tuple[ServerSpec, ...] = ()
    problems: tuple[str, ...] = ()  # one line each: a bad file, a bad entry, an unset variable

    def runnable(self) -> tuple[ServerSpec, ...]:
        return tuple(server for server in self.servers if server.approved)


def load_servers(settings: Settings, environ: Mapping[str, str]) -> ServerList:
    """Every configured server (project first) and each problem, as one line."""
    entries, problems = settings.mcp_servers()
    approvals = settings.mcp_approvals()
    servers: list[ServerSpec] = []
    for entry in entries:
        try:
            spec = parse_entry(entry, environ)
        except ConfigError as exc:
            problems.append(str(exc))
            continue
        if entry.scope == "project" and approvals.get(entry.name) != spec.fingerprint:
            spec = replace(spec, approved=False)
        servers.append(spec)
    return ServerList(tuple(servers), tuple(problems))


def parse_entry(
    entry: McpServerEntry, environ: Mapping[str, str], *, expand: bool = True
) -> ServerSpec:
    """The entry checked and expanded; ConfigError names the server, the file and the field.
    Without `expand` its strings are taken as they are (an editor sends values, not `${VAR}`s)."""
    where = f"MCP server {entry.name!r} in {entry.source}"
    if not SERVER_NAME.fullmatch(entry.name):
        raise ConfigError(f"{where}: the name must be 1-32 letters, digits, '-' or '_'")
    raw = entry.entry
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: the entry must be an object")
    kind = raw.get("type", "http" if "url" in raw and "command" not in raw else "stdio")
    base = ServerSpec(entry.name, "stdio", entry.scope, entry.source, fingerprint=fingerprint(raw))

    def expanded(value: str, key: str) -> str:
        return _expand(value, environ, f"{where}: {key}") if expand else value

    def text(key: str, value: object) -> str:
        if not isinstance(value, str) or not value or len(value) > _STRING_CAP:
            raise ConfigError(f"{where}: {key} must be a non-empty string")
        return expanded(value, key)

    def table(key: str) -> dict[str, str]:
        value = raw.get(key, {})
        if not isinstance(value, dict) or not all(
            isinstance(v, str) and len(v) <= _STRING_CAP for v in value.values()
        ):
            raise ConfigError(f"{where}: {key} must be an object of strings")
        return {str(k): expanded(v, f"{key}.{k}") for k, v in value.items()}

    if kind == "stdio":
        args = raw.get("args", [])
        if not isinstance(args, list):
            raise ConfigError(f"{where}: args must be a list of strings")
        return replace(
            base,
            command=text("command", raw.get("command")),
            args=tuple(text("args", arg) if arg else "" for arg in args),
            env=table("env"),
        )
    if kind in ("http", "streamable-http"):
        url = text("url", raw.get("url"))
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"{where}: url must be an http(s) URL")
        return replace(base, transport="http", url=url, headers=table("headers"))
    raise ConfigError(f"{where}: type {kind!r} is not supported (stdio or http)")


def fingerprint(raw: object) -> str:
    """The entry as written, canonically: what an approval is for."""
    import hashlib

    canonical = json.dumps(raw, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _expand(value: str, environ: Mapping[str, str], where: str) -> str:
    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if found is None:
            if default is None:
                raise ConfigError(
                    f"{where}: ${{{name}}} is not set (or write ${{{name}:-default}})"
                )
            return default
        return found

    return _VARIABLE.sub(one, value)


def build_entry(
    command: str | None,
    args: tuple[str, ...],
    env: Mapping[str, str],
    url: str | None,
    headers: Mapping[str, str],
) -> dict[str, Any]:
    """The .mcp.json entry `mcp-servers add` writes: a command or a URL, not both."""
    if (command is None) == (url is None):
        raise InvalidValueError("give a command (after --) or --url, not both")
    if url is not None:
        entry: dict[str, Any] = {"type": "http", "url": url}
        if headers:
            entry["headers"] = dict(headers)
        return entry
    entry = {"command": command, "args": list(args)}
    if env:
        entry["env"] = dict(env)
    return entry


def add_server(
    home: Home, project_dir: Path, scope: McpScope, name: str, raw: dict[str, Any]
) -> Path:
    """Write the entry (checked first) into .mcp.json or settings.json; the file written.

    A server the user adds to the project is approved on this machine at once."""
    source = home.settings_file if scope == "user" else _project_file(project_dir)
    try:
        parse_entry(McpServerEntry(name, raw, scope, source), {})
    except ConfigError as exc:
        if "is not set" not in str(exc):  # a ${VAR} may be set only where the server runs
            raise InvalidValueError(str(exc)) from exc

    def change(data: dict[str, Any]) -> dict[str, Any]:
        servers = data.get("mcpServers", {})
        if not isinstance(servers, dict):
            raise ConfigError(f"{source}: mcpServers must be an object")
        return {**data, "mcpServers": {**servers, name: raw}}

    if scope == "user":
        update_global_settings(home, change)
    else:
        update_project_mcp(project_dir, change)
        approve_server(project_dir, name, fingerprint(raw))
    return source


def remove_server(home: Home, project_dir: Path, scope: McpScope | None, name: str) -> Path:
    """Remove the server from the scope given, else from wherever it is (project first)."""
    for where in (scope,) if scope else ("project", "user"):
        source = home.settings_file if where == "user" else _project_file(project_dir)
        removed = False

        def change(data: dict[str, Any]) -> dict[str, Any]:
            nonlocal removed
            servers = data.get("mcpServers")
            if not isinstance(servers, dict) or name not in servers:
                return data
            removed = True
            return {**data, "mcpServers": {k: v for k, v in servers.items() if k != name}}

        if where == "user":
            update_global_settings(home, change)
        elif source.is_file():
            update_project_mcp(project_dir, change)
        if removed:
            return source
    raise NotFoundError(f"no MCP server named {name!r} (see `mini-letta mcp-servers list`)")


def approve_server(project_dir: Path, name: str, print_: str) -> None:
    """Let the project's server `name`, as it is written now, start on this machine."""

    def change(data: dict[str, Any]) -> dict[str, Any]:
        approved = data.get("mcpApproved", {})
        approved = approved if isinstance(approved, dict) else {}
        return {**data, "mcpApproved": {**approved, name: print_}}

    update_project_settings(project_dir, change)


def _project_file(project_dir: Path) -> Path:
    from mini_letta.home import project_mcp_file

    return project_mcp_file(project_dir)
