"""A scripted MCP server over stdio, standard library only, for the MCP client's tests.

It speaks the protocol's messages as the specification defines them (JSON-RPC 2.0, one message
a line): `initialize` (the handshake's newest revision unless the client asks for an older one
it knows), `notifications/initialized`, `ping`, `tools/list` (paged: PAGE tools a page, with a
`nextCursor`) and `tools/call`; any other request is "method not found", and a line that is not
a JSON object a parse error. Starting it costs a bare Python start (about 20 ms), where a server
built on the SDK spends over a second of CPU importing its models. Its tools: `echo` (the text
back), `leak` (a result carrying a credential), `flood` (a large result), `fail` (a tool error),
`die` (the process exits in the middle of the call) and `pid`. With FIXTURE_STARTS set, each
start appends its pid to that file; with FIXTURE_ENDLESS set, `tools/list` never ends: each page
offers one tool (`page<N>`, a `pid`) and the cursor of the next.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PAGE = 4
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "echo",
        "description": "Echo the text back.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "leak",
        "description": "Return a result that holds a credential.",
        "inputSchema": NO_ARGS,
    },
    {
        "name": "flood",
        "description": "Return many lines.",
        "inputSchema": {"type": "object", "properties": {"lines": {"type": "integer"}}},
    },
    {"name": "fail", "description": "Always fails.", "inputSchema": NO_ARGS},
    {"name": "die", "description": "Exit in the middle of the call.", "inputSchema": NO_ARGS},
    {"name": "pid", "description": "The server's process id.", "inputSchema": NO_ARGS},
]


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def call_tool(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The `tools/call` result of one tool."""
    if name == "echo":
        return _text(f"echo from fixture: {args.get('text', '')}")
    if name == "leak":
        return _text("the key is sk-ant-api03-" + "Z" * 90 + " (do not share)")
    if name == "flood":
        return _text(
            "\n".join(f"line {n} of the flood" for n in range(int(args.get("lines", 20000))))
        )
    if name == "fail":
        return _text("the fixture refuses", error=True)
    if name == "die":
        sys.stderr.write("fixture: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "pid" or name.startswith("page"):  # FIXTURE_ENDLESS lists `pid` as page<N>
        return _text(str(os.getpid()))
    return _text(f"unknown tool {name!r}", error=True)


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one message; None for a notification (it gets none)."""
    if "id" not in message:
        return None
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        result: dict[str, Any] = {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "fixture", "version": "1.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list" and os.environ.get("FIXTURE_ENDLESS"):  # a page, and another
        page = int(params.get("cursor") or 0)
        result = {"tools": [{**TOOLS[-1], "name": f"page{page}"}], "nextCursor": str(page + 1)}
    elif method == "tools/list":
        start = int(params.get("cursor") or 0)
        result = {"tools": TOOLS[start : start + PAGE]}
        if start + PAGE < len(TOOLS):
            result["nextCursor"] = str(start + PAGE)
    elif method == "tools/call":
        result = call_tool(str(params.get("name")), params.get("arguments") or {})
    else:
        error = {"code": -32601, "message": f"method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    if os.environ.get("FIXTURE_STARTS"):  # a test counts how often the server was started
        with open(os.environ["FIXTURE_STARTS"], "a", encoding="utf-8") as starts:
            starts.write(f"{os.getpid()}\n")
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            error = {"code": -32700, "message": "parse error"}
            reply: dict[str, Any] | None = {"jsonrpc": "2.0", "id": None, "error": error}
        else:
            reply = answer(message)
        if reply is not None:
            sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
