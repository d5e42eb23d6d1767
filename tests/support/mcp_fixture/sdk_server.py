"""An MCP server built with the official SDK (`MCPServer`), for interop with the SDK's own server.

The tests serve it over streamable HTTP in a thread of the test process
(support/mcp_servers.py: no second SDK import); `python sdk_server.py` serves it over stdio as
a process of its own (bench/mcp_client_cost.py). Its tools: `echo` (the text back) and `fail`
(a tool error). The SDK is imported when the server is built, never at import.
"""

from __future__ import annotations

from typing import Any


def build_server() -> Any:
    """The fixture server (an `MCPServer`)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("fixture")

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo from fixture: {text}"

    @server.tool(description="Always fails.")
    def fail() -> str:
        raise ToolError("the fixture refuses")

    return server


if __name__ == "__main__":
    build_server().run("stdio")
