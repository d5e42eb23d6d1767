"""`mini-letta acp`: be an Agent Client Protocol agent on stdin/stdout for an editor.

The server is mini_letta/acp/; this command gives it what only the CLI has: the world of a
session's folder, the detached-worker spawner, the `☾ reflection` line, and the CLI commands
the slash commands run (in-process, their output captured).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from mini_letta.cli.options import agent_option, model_option, permission_mode_option

if TYPE_CHECKING:
    from mini_letta.workspace import World

INSTALL_HINT = (
    "the Agent Client Protocol SDK is not installed "
    "(pip install 'agent-client-protocol>=0.12,<0.13')"
)


@click.command("acp")
@agent_option
@model_option("Model for the editor's sessions (mock, openai/…); agent.json keeps its own.")
@permission_mode_option(
    "Each session's starting mode (the editor can switch it): default asks through the editor "
    "before edits and commands."
)
def acp(agent: str | None, model: str | None, permission_mode: str) -> None:
    """Serve this project's agent to an editor over the Agent Client Protocol (stdio)."""
    try:
        import acp as _sdk  # noqa: F401  (checked here, used by the server)
    except ImportError as exc:
        from mini_letta.errors import MiniLettaError

        raise MiniLettaError(INSTALL_HINT) from exc
    from mini_letta.acp.server import Frontend, ServerOptions, serve
    from mini_letta.cli.background import cli_spawner
    from mini_letta.cli.reflection_view import render_outcome_line
    from mini_letta.cli.terminal import current_terminal

    terminal = current_terminal()
    _one_line_logs(terminal.stderr)

    def world_for(cwd: Path) -> World:
        from mini_letta.cli.world import world_of
        from mini_letta.structs import replace

        return world_of(replace(terminal, cwd=cwd))

    if agent is not None:  # an unknown agent is one line now, not an error per session
        from mini_letta.workspace import resolve_agent

        resolve_agent(world_for(terminal.cwd), agent)
    serve(
        Frontend(
            world_for=world_for,
            describe_outcome=render_outcome_line,
            run_command=run_captured,
            spawner_for=cli_spawner,
        ),
        ServerOptions(agent=agent, model=model, permission_mode=permission_mode),  # type: ignore[arg-type]
    )


def _one_line_logs(stream: TextIO) -> None:
    """The SDK logs a failed request with its traceback; here that is one line on stderr."""
    import logging

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            error = record.exc_info[1] if record.exc_info else None
            return f"mini-letta: acp: {record.getMessage()}" + (f": {error!r}" if error else "")

    handler = logging.StreamHandler(stream)
    handler.setFormatter(OneLine())
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)


def run_captured(argv: list[str], world: World) -> str:
    """Run the CLI command `argv` in this process, in `world`'s folder; what it printed."""
    from mini_letta.cli.commands.root import load_command
    from mini_letta.cli.commands.slash_state import run_click
    from mini_letta.cli.terminal import Terminal, running_on

    out, err = io.StringIO(), io.StringIO()
    terminal = Terminal(io.StringIO(), out, err, world.environ, world.cwd)
    with running_on(terminal):
        run_click(load_command(argv[0]), argv[1:], f"/{argv[0]}")
    return out.getvalue() + err.getvalue()
