"""A real MCP server written with the official SDK, for the MCP client's tests.

Run as `python mcp_fixture_server.py stdio` or `... http PORT`. Its tools: `echo` (the text
back, with the server's name), `leak` (a result carrying a credential), `flood` (a large
result), `die` (the process exits in the middle of the call), `fail` (a tool error), `pid`.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("fixture")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return f"echo from fixture: {text}"


@server.tool(description="Return a result that holds a credential.")
def leak() -> str:
    return "the key is sk-ant-api03-" + "Z" * 90 + " (do not share)"


@server.tool(description="Return many lines.")
def flood(lines: int = 20000) -> str:
    return "\n".join(f"line {n} of the flood" for n in range(lines))


@server.tool(description="Exit in the middle of the call.")
def die() -> str:
    sys.stderr.write("fixture: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(description="The server's process id.")
def pid() -> str:
    return str(os.getpid())


@server.tool(description="Always fails.")
def fail() -> str:
    raise ToolError("the fixture refuses")


if __name__ == "__main__":
    if os.environ.get("FIXTURE_STARTS"):  # a test counts how often the server was started
        with open(os.environ["FIXTURE_STARTS"], "a", encoding="utf-8") as starts:
            starts.write(f"{os.getpid()}\n")
    if sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
