"""The MCP servers an editor sends with session/new and session/load: checked as configured
servers are, joined to them for that session, started at its first model request, closed with
it; and what `initialize` advertises. In process: the ACP agent's own methods, the scripted
stdio MCP server (support/mcp_fixture) and the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

from mini_letta.acp.mcp_servers import editor_server_specs
from mini_letta.acp.runner import TurnRunner
from mini_letta.acp.server import Frontend, MiniLettaAgent, ServerOptions
from mini_letta.mcp_client.config import add_server
from mini_letta.workspace import World
from support.groups import ACP, MCP, NO_ACP, NO_MCP
from support.mcp_servers import stdio_entry
from support.scripted_server import ScriptedServer, openai_stream, openai_tool_call
from support.waiting import process_alive, wait_until

STDIO = stdio_entry()


def _editor_stdio(name: str, **env: str) -> dict[str, Any]:
    """The fixture server as an editor sends it: ACP's stdio entry, env as name/value pairs."""
    pairs = [{"name": key, "value": value} for key, value in env.items()]
    return {"name": name, "command": STDIO["command"], "args": STDIO["args"], "env": pairs}


def test_the_editors_servers_are_checked_as_configured_ones_and_kept_as_sent():
    entries = [
        {**_editor_stdio("fs", TOKEN="t-1"), "args": ["--root", "${HOME}"]},
        {
            "type": "http",
            "name": "Docs Server",
            "url": "https://docs.example.com/mcp",
            "headers": [{"name": "Authorization", "value": "Bearer abc"}],
        },
        {"type": "sse", "name": "old", "url": "https://example.com/sse", "headers": []},
        {"type": "acp", "name": "inproc", "serverId": "s1"},
        _editor_stdio("fs"),  # the same name again
        _editor_stdio("???"),  # nothing left of the name
        {"name": "blank", "command": "", "args": [], "env": []},
        {"type": "http", "name": "ftp", "url": "ftp://example.com/mcp", "headers": []},
        {"name": "pairs", "command": "x", "args": [], "env": ["A=b"]},  # not name/value pairs
    ]
    specs, problems = editor_server_specs(entries)
    assert [(s.name, s.transport, s.scope) for s in specs] == [
        ("fs", "stdio", "editor"),
        ("Docs_Server", "http", "editor"),
    ]
    fs, docs = specs
    assert fs.args == ("--root", "${HOME}") and fs.env == {"TOKEN": "t-1"}  # values, as sent
    assert docs.url == "https://docs.example.com/mcp"
    assert docs.headers == {"Authorization": "Bearer abc"}
    assert len(problems) == 7 and all("\n" not in line for line in problems)
    assert "type 'sse' is not supported" in problems[0] and "'acp'" in problems[1]
    assert "empty or repeated" in problems[2] and "empty or repeated" in problems[3]
    assert "command must be a non-empty string" in problems[4]
    assert "url must be an http(s) URL" in problems[5]
    assert "env must be" in problems[6]

    many, [line] = editor_server_specs([_editor_stdio(f"s{n}") for n in range(40)])
    assert [spec.name for spec in many] == [f"s{n}" for n in range(32)]
    assert line == "the editor sent 40 MCP servers; the first 32 are kept, the rest left out"


class _Editor:
    """The client side the agent talks to: it records the updates it is sent."""

    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)


def _agent(world: World, model: str | None = None) -> MiniLettaAgent:
    frontend = Frontend(
        world_for=lambda folder: World(world.home, folder, world.environ, world.clock),
        describe_outcome=str,
        run_command=lambda words: "",
    )
    options = ServerOptions(model=model, permission_mode="bypassPermissions")
    return MiniLettaAgent(TurnRunner(), frontend, options)


@MCP
@NO_MCP
def test_an_editors_server_joins_the_configured_ones_for_its_session_and_stops_with_it(
    home, project: Path, clock, scripted_server: ScriptedServer, tmp_path: Path
):
    environ = {
        "PATH": os.environ["PATH"],
        "OPENAI_API_KEY": "sk-test-dummy",
        "OPENAI_BASE_URL": scripted_server.url + "/v1",
    }
    world = World(home=home, cwd=project, environ=environ, clock=clock)
    add_server(home, project, "user", "fx", STDIO)  # configured: joins the editor's
    add_server(home, project, "user", "ed", {"command": "/nonexistent/mcp"})  # hidden
    starts = tmp_path / "starts.txt"
    specs, problems = editor_server_specs([_editor_stdio("ed", FIXTURE_STARTS=str(starts))])
    assert problems == []
    calls = [
        openai_tool_call("c1", "mcp__ed__echo", json.dumps({"text": "from the editor"})),
        openai_tool_call("c2", "mcp__ed__pid", "{}"),
    ]
    scripted_server.queue(openai_stream("", calls), openai_stream("Done."))
    agent = _agent(world, "openai/gpt-4o-mini")
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:

        async def connect() -> None:
            agent.on_connect(_Editor())  # type: ignore[arg-type]

        asyncio.run_coroutine_threadsafe(connect(), loop).result(timeout=10)
        opened = agent.open_here(project, None, specs)
        assert opened.session is not None and opened.session.mcp is opened.mcp
        assert opened.session.run("use the editor's server").text == "Done."
        results = {
            m.tool_call_id: m.content for _, m in opened.session.store.tail(20) if m.role == "tool"
        }
        pid = int(results["c2"])
        listed = {t["function"]["name"] for t in scripted_server.requests[0].body["tools"]}
        assert {"mcp__ed__echo", "mcp__fx__echo"} <= listed
        assert results["c1"] == "echo from fixture: from the editor"
        assert starts.read_text().split() == [str(pid)]  # the editor's env reached it
        opened.close()
        wait_until(lambda: not process_alive(pid), "the editor's server to stop with its session")
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


@ACP
@NO_ACP
def test_initialize_advertises_http_and_a_new_session_takes_the_editors_servers(world, project):
    from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

    agent = _agent(world)
    reply = asyncio.run(agent.initialize(protocol_version=1))
    capabilities = reply.agent_capabilities.mcp_capabilities
    assert capabilities.http is True and capabilities.sse is False

    sent = [
        McpServerStdio(name="ed", command=STDIO["command"], args=STDIO["args"], env=[]),
        HttpMcpServer(type="http", name="docs", url="http://127.0.0.1:9/mcp", headers=[]),
        SseMcpServer(type="sse", name="old", url="http://127.0.0.1:9/sse", headers=[]),
    ]
    opened: list[Any] = []

    async def editor() -> None:
        agent.on_connect(_Editor())  # type: ignore[arg-type]
        new = await agent.new_session(cwd=str(project), mcp_servers=sent)
        opened.append(agent.sessions[new.session_id])

    def client() -> None:
        try:
            asyncio.run(editor())
        finally:
            agent.runner.stop()

    thread = threading.Thread(target=client)
    thread.start()
    agent.runner.run()  # the sessions open on the main thread, as in `serve`
    thread.join(10)
    [session] = opened
    assert session.mcp is not None and not session.mcp.started  # the mock model lists none
    assert [(s.name, s.transport) for s in session.mcp.specs] == [("ed", "stdio"), ("docs", "http")]
    agent.close_sessions()
