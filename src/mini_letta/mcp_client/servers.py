"""The MCP servers of one session: started on first use, shared by its turns, closed with it.

Our loop is synchronous and the SDK async, so the servers live on one private event loop in a
thread of their own; the caller waits on each step with a timeout. Nothing starts until the
tool list is first asked for (the first model request of the session), and then every server
starts at once, in parallel. A server that fails to start, or dies, is one warning line; its
tools are gone and the turn goes on. `close` ends every connection (stdio servers are stopped
by the SDK: stdin closed, then terminated, then killed) and the thread, within a bound.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta.mcp_client.config import ServerSpec
from mini_letta.mcp_client.connection import Connection, ListedTool, ServerGone
from mini_letta.settings import Settings
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mini_letta.tools.base import Tool

Warn = Callable[[str], None]


class McpTimeouts(Struct, frozen=True):
    start: float = 30.0  # connect, initialize and list the tools
    call: float = 120.0  # one tool call
    close: float = 10.0  # every server stopped (the SDK allows a stdio server 2 s + 2 s)


class McpServers:
    """The session's servers; `tools()` starts them, `call` reaches one, `close` ends all."""

    def __init__(
        self,
        specs: tuple[ServerSpec, ...],
        *,
        cwd: Path,
        environ: Mapping[str, str],
        warn: Warn,
        timeouts: McpTimeouts | None = None,
    ) -> None:
        self.specs = specs
        self.cwd = cwd
        self.environ = environ
        self.warn = warn
        self.timeouts = timeouts or McpTimeouts()
        self._connections: dict[str, Connection] = {}
        self._tools: tuple[Tool, ...] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tasks: list[concurrent.futures.Future[None]] = []
        self._reported: set[str] = set()

    @property
    def started(self) -> bool:
        return self._loop is not None

    def tools(self) -> tuple[Tool, ...]:
        """Every running server's tools, checked (tools.py); the first call starts them."""
        if self._tools is None:
            self._tools = self._start()
        return self._tools

    def call(self, server: str, tool: str, args: dict[str, Any]) -> Any:
        """The server's `CallToolResult`; a MiniLettaError the model reads when the server is
        gone or silent (the turn goes on)."""
        from mini_letta.mcp_client.tools import McpCallError

        connection = self._connections.get(server)
        if connection is None or connection.session is None or self._loop is None:
            why = f" ({connection.failure})" if connection and connection.failure else ""
            raise McpCallError(f"MCP server {server!r} is not running{why}")
        limit = self.timeouts.call
        future = asyncio.run_coroutine_threadsafe(connection.call(tool, args, limit), self._loop)
        try:
            return future.result(timeout=limit + 5)
        except ServerGone as exc:
            message = f"MCP server {server!r} stopped during the call ({exc})"
            self._report(server, message + "; its tools are unavailable for this session")
            raise McpCallError(message) from exc
        except (TimeoutError, concurrent.futures.TimeoutError) as exc:
            future.cancel()
            raise McpCallError(f"MCP server {server!r} gave no answer within {limit:g} s") from exc
        except BaseException:
            future.cancel()  # Ctrl-C: the call is abandoned, the server stays up
            raise

    def close(self) -> None:
        """Stop every server and the loop's thread; safe to call twice."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._loop = None
        for connection in self._connections.values():
            loop.call_soon_threadsafe(connection.close)
        done, _ = concurrent.futures.wait(self._tasks, timeout=self.timeouts.close)
        for task in self._tasks:
            if task not in done:
                task.cancel()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=self.timeouts.close)
        if not thread.is_alive():
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _start(self) -> tuple[Tool, ...]:
        from mini_letta.mcp_client.tools import build_tools

        if not self.specs:
            return ()
        self._connections, self._tasks = {}, []
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="mcp-servers", daemon=True)
        self._thread.start()
        readies: dict[str, concurrent.futures.Future[list[ListedTool]]] = {}
        for spec in self.specs:
            connection = Connection(spec, self.cwd, self.environ)
            self._connections[spec.name] = connection
            ready: concurrent.futures.Future[list[ListedTool]] = concurrent.futures.Future()
            readies[spec.name] = ready
            serve = connection.serve(ready, self.timeouts.start)
            self._tasks.append(asyncio.run_coroutine_threadsafe(serve, loop))
        try:
            listed = self._wait_for(readies)
        except BaseException:  # Ctrl-C while they start: stop them; the next turn tries again
            self.close()
            raise
        tools, problems = build_tools(self, listed)
        for problem in problems:
            self.warn(problem)
        return tools

    def _wait_for(
        self, readies: dict[str, concurrent.futures.Future[list[ListedTool]]]
    ) -> dict[str, list[ListedTool]]:
        listed: dict[str, list[ListedTool]] = {}
        for name, ready in readies.items():
            try:
                listed[name] = ready.result(timeout=self.timeouts.start + 5)
            except (ServerGone, TimeoutError, concurrent.futures.TimeoutError) as exc:
                reason = str(exc) or f"no answer within {self.timeouts.start:g} s"
                self._report(
                    name, f"MCP server {name!r} did not start ({reason}); going on without it"
                )
        return listed

    def _report(self, server: str, message: str) -> None:
        if server not in self._reported:
            self._reported.add(server)
            self.warn(message)


def configured_servers(
    settings: Settings,
    environ: Mapping[str, str],
    *,
    cwd: Path,
    warn: Warn,
    extra: tuple[ServerSpec, ...] = (),
) -> McpServers | None:
    """The servers that may start (each problem and unapproved project server is one warning
    line), then `extra` (an editor's, checked by the caller), which hide configured servers of
    their names; None when there are none. McpSdkMissingError when some may and `mcp` is
    missing."""
    from mini_letta.mcp_client.config import load_servers
    from mini_letta.mcp_client.sdk import require_sdk

    found = load_servers(settings, environ)
    for problem in found.problems:
        warn(problem)
    hidden = {spec.name for spec in extra}
    for spec in found.servers:
        if not spec.approved and spec.name not in hidden:
            warn(
                f"MCP server {spec.name!r} of {spec.source} is not approved on this machine: "
                f"`mini-letta mcp-servers approve {spec.name}` lets it start"
            )
    runnable = tuple(s for s in found.runnable() if s.name not in hidden) + extra
    if not runnable:
        return None
    require_sdk()
    default = McpTimeouts()
    timeouts = McpTimeouts(
        start=_seconds(environ, "MCP_TIMEOUT", default.start, warn),
        call=_seconds(environ, "MCP_TOOL_TIMEOUT", default.call, warn),
    )
    return McpServers(runnable, cwd=cwd, environ=environ, warn=warn, timeouts=timeouts)


def _seconds(environ: Mapping[str, str], name: str, default: float, warn: Warn) -> float:
    """Claude Code's variables, in milliseconds: MCP_TIMEOUT to start, MCP_TOOL_TIMEOUT a call."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw) / 1000
    warn(f"{name}={raw!r} is not a number of milliseconds; using {default:g} s")
    return default
