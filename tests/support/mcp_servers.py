"""MCP servers for the MCP client's tests.

- `stdio_entry`: the scripted server of mcp_fixture/stdio_server.py (standard library only, a
  bare Python start) as a configuration entry; most tests talk to it.
- `sdk_http_server`: the server built with the official SDK (mcp_fixture/sdk_server.py),
  served over streamable HTTP on 127.0.0.1 by uvicorn in a thread of this process, so interop
  with the SDK's own server stays checked without starting a process that imports the SDK again.
The SDK is imported only when a server is built: collecting a test imports nothing of it.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from support.waiting import wait_until

STDIO_SERVER = Path(__file__).resolve().parent / "mcp_fixture" / "stdio_server.py"


def stdio_entry(env: dict[str, str] | None = None) -> dict[str, Any]:
    """The scripted stdio server as an `mcpServers` entry."""
    entry: dict[str, Any] = {"command": sys.executable, "args": [str(STDIO_SERVER)]}
    return {**entry, "env": env} if env else entry


class SdkHttpServer(NamedTuple):
    url: str
    headers: list[dict[str, str]]  # each request's headers, as the server received them


@contextmanager
def sdk_http_server() -> Iterator[SdkHttpServer]:
    """The SDK-built fixture over streamable HTTP on a free port."""
    import uvicorn

    from support.mcp_fixture.sdk_server import build_server

    app = build_server().streamable_http_app()
    seen: list[dict[str, str]] = []

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            seen.append({k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]})
        await app(scope, receive, send)

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(recording, loop="asyncio", log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), "the SDK server to listen")
        assert server.started, "the SDK server did not start"
        yield SdkHttpServer(f"http://127.0.0.1:{port}/mcp", seen)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()
