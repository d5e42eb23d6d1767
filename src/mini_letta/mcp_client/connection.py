"""One MCP server's connection, run on the session's private event loop.

The SDK's transports and `ClientSession` are async context managers that must be entered and
left by one task, so each server has one task (`serve`) that opens the connection, lists the
tools, then waits to be told to close; tool calls are tasks of their own on the same loop (the
session correlates concurrent requests). The loop and the thread that runs it belong to
`McpServers` (servers.py); this module never blocks the caller's thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from mini_letta.mcp_client.config import ServerSpec
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

MAX_PAGES = 5  # a server that pages forever is cut off after this many tools/list pages
_REASON_CAP = 200


class ListedTool(Struct, frozen=True):
    """A tool as the server listed it (checked later: tools.py)."""

    name: object
    description: object
    schema: object


class ServerGone(Exception):
    """The server's connection ended (it failed to start, exited, or was closed)."""


class Connection:
    """One server: `serve` runs as a task for the connection's whole life."""

    def __init__(self, spec: ServerSpec, cwd: Path, environ: Mapping[str, str]) -> None:
        self.spec = spec
        self.cwd = cwd
        self.environ = environ
        self.session: ClientSession | None = None
        self.failure: str | None = None  # why the connection is gone, once it is
        self._closing: asyncio.Event | None = None
        self._errlog: TextIO | None = None

    async def serve(
        self, ready: concurrent.futures.Future[list[ListedTool]], start_timeout: float
    ) -> None:
        """Open, list the tools into `ready`, stay open until `close`; never raises."""
        import anyio
        from mcp.client.session import ClientSession

        self._closing = asyncio.Event()
        # The server's stderr, kept for the one line that says why it failed.
        with cast(
            TextIO, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        ) as errlog:
            self._errlog = errlog
            try:
                async with AsyncExitStack() as stack:
                    read, write = await self._transport(stack, errlog)
                    session = await stack.enter_async_context(ClientSession(read, write))
                    with anyio.fail_after(start_timeout):
                        await session.initialize()
                        tools = await _list_tools(session)
                    self.session = session
                    ready.set_result(tools)
                    await self._closing.wait()
                    self.session = None
            except TimeoutError:
                self._fail(ready, f"no answer within {start_timeout:g} s")
            except BaseException as exc:  # a task group's ExceptionGroup included
                if isinstance(exc, KeyboardInterrupt | SystemExit):
                    raise
                cancelled = isinstance(exc, asyncio.CancelledError)
                if isinstance(_innermost(exc), TimeoutError):  # raised inside a task group
                    self._fail(ready, f"no answer within {start_timeout:g} s")
                else:
                    self._fail(ready, "closed" if cancelled else _reason(exc))
            else:
                self.failure = self.failure or "closed"
            finally:
                self.session = None
                self._errlog = None

    def close(self) -> None:
        """Let `serve` leave the connection (call on the loop's thread)."""
        if self._closing is not None:
            self._closing.set()

    async def call(self, tool: str, args: dict[str, Any], timeout: float) -> Any:
        """The server's `CallToolResult`; ServerGone when the connection is (or goes) away."""
        session = self.session
        if session is None:
            raise ServerGone(self.failure or "not running")
        try:
            return await session.call_tool(tool, args, read_timeout_seconds=timeout)
        except Exception as exc:
            from mcp.shared.exceptions import MCPError
            from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

            if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT:
                raise TimeoutError(f"no answer within {timeout:g} s") from exc
            if isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED:
                raise
            await asyncio.sleep(0)  # let the transport see the end of the server's output
            self.session = None  # the next call is told at once
            self.failure = self._stderr_tail() or _reason(exc)
            raise ServerGone(self.failure) from exc

    async def _transport(self, stack: AsyncExitStack, errlog: TextIO) -> Any:
        """The (read, write) streams, entered on `stack` (the HTTP client too: ours to close)."""
        spec = self.spec
        if spec.transport == "http":
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(create_mcp_http_client(dict(spec.headers)))
            return await stack.enter_async_context(
                streamable_http_client(spec.url, http_client=http)
            )
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), env=self._env(), cwd=self.cwd
        )
        return await stack.enter_async_context(stdio_client(params, errlog=errlog))

    def _env(self) -> dict[str, str]:
        """The caller's safe variables (the SDK's list) and the entry's own `env`; no keys."""
        from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

        inherited = {k: self.environ[k] for k in DEFAULT_INHERITED_ENV_VARS if k in self.environ}
        return {**inherited, **self.spec.env}

    def _fail(self, ready: concurrent.futures.Future[list[ListedTool]], reason: str) -> None:
        self.failure = self._stderr_tail() or reason or "closed"
        if not ready.done():
            ready.set_exception(ServerGone(self.failure))

    def _stderr_tail(self) -> str:
        """The last line the server wrote on stderr: usually why it stopped."""
        log = self._errlog
        if log is None or log.closed:
            return ""
        try:
            log.seek(0, 2)
            size = log.tell()
            log.seek(max(size - 4096, 0))
            lines = [line.strip() for line in log.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return lines[-1][:_REASON_CAP] if lines else ""


async def _list_tools(session: ClientSession) -> list[ListedTool]:
    from mcp_types import PaginatedRequestParams

    found: list[ListedTool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        found += [ListedTool(t.name, t.description, t.input_schema) for t in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside (nested) groups: the task groups wrap what was raised."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    """One line for an exception, the innermost of a group."""
    exc = _innermost(exc)
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:_REASON_CAP]
