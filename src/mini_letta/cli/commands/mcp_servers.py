"""`mini-letta mcp-servers list|add|remove|approve`: the MCP servers whose tools the agent uses.

Beside `mini-letta mcp`, which serves this agent's memory to other tools, these manage the
servers mini-letta is a client of, in Claude Code's format (the project's .mcp.json, or
`mcpServers` in settings.json with `--scope user`). Nothing here starts a server.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from mini_letta.cli.fit import fit_line
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.mcp_client.config import ServerList

SCOPES = click.Choice(["project", "user"])


@click.group("mcp-servers")
def mcp_servers() -> None:
    """MCP servers whose tools the agent can call (.mcp.json and settings.json)."""


def _configured() -> ServerList:
    from mini_letta.cli.world import current_world
    from mini_letta.mcp_client.config import load_servers
    from mini_letta.settings import read_settings

    world = current_world()
    return load_servers(read_settings(world.home, world.project_dir), world.environ)


@mcp_servers.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_cmd(as_json: bool) -> None:
    """List the servers: name, scope, transport, command or URL, and whether it may start."""
    found = _configured()
    if as_json:
        servers = [
            {
                "name": s.name,
                "scope": s.scope,
                "source": str(s.source),
                "transport": s.transport,
                "target": s.target(),
                "approved": s.approved,
            }
            for s in found.servers
        ]
        echo(json.dumps({"servers": servers, "problems": list(found.problems)}, indent=2))
        return
    if not found.servers and not found.problems:
        echo("No MCP servers. Add one: mini-letta mcp-servers add NAME -- COMMAND [ARGS...]")
    width = current_terminal().columns()
    for s in found.servers:
        state = "" if s.approved else "  (not approved here: mcp-servers approve " + s.name + ")"
        echo(fit_line(f"{s.name}  [{s.scope}]  {s.transport}  {s.target()}{state}", width))
    for problem in found.problems:
        echo(fit_line(f"problem: {problem}", width))


@mcp_servers.command(
    "add", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.option("-s", "--scope", type=SCOPES, default="project", show_default=True,
              help="project: the project's .mcp.json; user: settings.json.")  # fmt: skip
@click.option("-t", "--transport", type=click.Choice(["stdio", "http"]), default="stdio",
              show_default=True, help="http: TARGET is the server's URL.")  # fmt: skip
@click.option("-e", "--env", "env", multiple=True, metavar="KEY=VALUE",
              help="An environment variable for a stdio server (repeatable).")  # fmt: skip
@click.option("-H", "--header", "headers", multiple=True, metavar="'NAME: VALUE'",
              help="An HTTP header for an http server (repeatable).")  # fmt: skip
@click.argument("name")
@click.argument("target", nargs=-1, required=True, type=click.UNPROCESSED)
def add_cmd(
    scope: str,
    transport: str,
    env: tuple[str, ...],
    headers: tuple[str, ...],
    name: str,
    target: tuple[str, ...],
) -> None:
    """Add a server: `add NAME -- COMMAND [ARGS...]`, or `add -t http NAME URL`."""
    from typing import cast

    from mini_letta.cli.world import current_world
    from mini_letta.errors import InvalidValueError
    from mini_letta.mcp_client.config import SERVER_NAME, add_server, build_entry
    from mini_letta.settings import McpScope

    target = target[1:] if target[:1] == ("--",) else target
    if not target:
        raise InvalidValueError("give the server's command (after --) or its URL")
    if not SERVER_NAME.fullmatch(name):
        raise InvalidValueError(f"NAME {name!r} must be 1-32 letters, digits, '-' or '_'")
    if transport == "http" and len(target) != 1:
        raise InvalidValueError("an http server takes one URL")
    entry = build_entry(
        None if transport == "http" else target[0],
        target[1:],
        _pairs(env, "=", "--env"),
        target[0] if transport == "http" else None,
        _pairs(headers, ":", "--header"),
    )
    world = current_world()
    written = add_server(world.home, world.project_dir, cast(McpScope, scope), name, entry)
    echo(f"Added MCP server {name} to {written}")


@mcp_servers.command("remove")
@click.option("-s", "--scope", type=SCOPES, default=None, help="Only from this scope.")
@click.argument("name")
def remove_cmd(scope: str | None, name: str) -> None:
    """Remove a server (from the project's .mcp.json first, else settings.json)."""
    from typing import cast

    from mini_letta.cli.world import current_world
    from mini_letta.mcp_client.config import remove_server
    from mini_letta.settings import McpScope

    world = current_world()
    written = remove_server(world.home, world.project_dir, cast(McpScope | None, scope), name)
    echo(f"Removed MCP server {name} from {written}")


@mcp_servers.command("approve")
@click.argument("name")
def approve_cmd(name: str) -> None:
    """Let a server of the project's .mcp.json, as written now, start on this machine."""
    from mini_letta.cli.world import current_world
    from mini_letta.errors import NotFoundError
    from mini_letta.mcp_client.config import approve_server, fingerprint
    from mini_letta.settings import read_settings

    world = current_world()
    entries, _ = read_settings(world.home, world.project_dir).mcp_servers()
    found = [e for e in entries if e.name == name and e.scope == "project"]
    if not found:
        raise NotFoundError(f"no server named {name!r} in the project's .mcp.json")
    approve_server(world.project_dir, name, fingerprint(found[0].entry))
    echo(f"Approved MCP server {name} of {found[0].source}")


def _pairs(items: tuple[str, ...], sep: str, flag: str) -> dict[str, str]:
    from mini_letta.errors import InvalidValueError

    pairs: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            raise InvalidValueError(f"{flag} {item!r} must look like NAME{sep}VALUE")
        pairs[key.strip()] = value.strip() if sep == ":" else value
    return pairs
