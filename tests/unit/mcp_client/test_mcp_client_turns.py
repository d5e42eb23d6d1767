"""Turns that call real MCP servers, driven by the scripted OpenAI-compatible server: the tool
joins the request, the call goes through the permission modes, the result is redacted and
capped, and a server that does not start or dies mid-call is one warning line while the turn
goes on. Over stdio the server is the scripted one (support/mcp_fixture/stdio_server.py, a
real process that starts in milliseconds); over streamable HTTP it is built with the official
SDK and served in this process, so interop with the SDK's server stays checked."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.loop.setup import TurnOptions
from mini_letta.mcp_client.config import add_server
from mini_letta.mcp_client.connection import MAX_PAGES
from mini_letta.mcp_client.servers import configured_servers
from mini_letta.session import Session, open_mcp_servers
from mini_letta.settings import read_settings
from mini_letta.workspace import World
from support.groups import MCP, NO_MCP
from support.mcp_servers import SdkHttpServer, sdk_http_server, stdio_entry
from support.scripted_server import ScriptedServer, openai_stream, openai_tool_call
from support.waiting import process_alive, wait_until

# the MCP SDK is loaded in this process: on the one worker that loads it for the MCP group
pytestmark = [MCP, NO_MCP]

STDIO = stdio_entry()


@pytest.fixture
def world(home, project, clock) -> World:
    return World(home=home, cwd=project, environ={"PATH": os.environ["PATH"]}, clock=clock)


def _options(server: ScriptedServer, **more: object) -> TurnOptions:
    return TurnOptions(model="openai/gpt-4o-mini", base_url=server.url + "/v1", max_steps=4, **more)  # type: ignore[arg-type]


def _environ(world: World) -> World:
    return World(
        home=world.home,
        cwd=world.cwd,
        environ={**world.environ, "OPENAI_API_KEY": "sk-test-dummy"},
        clock=world.clock,
    )


def _tool_results(session: Session) -> dict[str, tuple[str, bool]]:
    """call id -> (content, is_error) of every tool result in the conversation."""
    found = {}
    for _, message in session.store.tail(50):
        if message.role == "tool":
            found[message.tool_call_id] = (message.content, message.is_error)
    return found


def _calls(*calls: tuple[str, str, dict[str, object]]) -> list[dict[str, str]]:
    return [openai_tool_call(cid, name, json.dumps(args)) for cid, name, args in calls]


def test_a_stdio_servers_tools_join_the_turn_and_results_are_redacted_and_capped(
    world, scripted_server
):
    add_server(world.home, world.project_dir, "project", "fx", STDIO)
    calls = _calls(
        ("c1", "mcp__fx__echo", {"text": "你好"}),
        ("c2", "mcp__fx__leak", {}),
        ("c3", "mcp__fx__flood", {"lines": 20000}),
        ("c4", "mcp__fx__fail", {}),
        ("c5", "mcp__fx__pid", {}),
    )
    scripted_server.queue(openai_stream("Calling.", calls), openai_stream("Done."))
    options = _options(scripted_server, permission_mode="bypassPermissions")
    with Session(_environ(world), options=options) as session:
        assert session.run("use the fixture").text == "Done."
        results = _tool_results(session)
        pid = int(results["c5"][0])
    first = scripted_server.requests[0].body
    listed = {t["function"]["name"]: t["function"] for t in first["tools"]}
    fixture = {name for name in listed if name.startswith("mcp__fx__")}
    assert len(fixture) == 6  # both pages of the server's tools/list
    assert listed["mcp__fx__echo"]["parameters"]["required"] == ["text"]
    assert listed["mcp__fx__echo"]["description"].startswith("[MCP fx] Echo")
    assert "Read" in listed  # the built-in tools stay, first
    assert results["c1"] == ("echo from fixture: 你好", False)
    assert "sk-ant-api03-ZZZZ" not in results["c2"][0] and "redacted" in results["c2"][0]
    assert len(results["c3"][0]) <= 30_000 and "characters omitted" in results["c3"][0]
    assert results["c4"][1] is True and "the fixture refuses" in results["c4"][0]
    sent = json.dumps(scripted_server.requests[1].body)
    assert "sk-ant-api03-ZZZZ" not in sent
    assert not process_alive(pid)  # closed with the session: no orphan


def test_permission_modes_govern_mcp_calls_and_sessions_can_share_one_set_of_servers(
    world, scripted_server
):
    """The interactive session keeps its servers across /model and /agent switches: a Session
    given servers uses them and leaves them running; their owner closes them."""
    add_server(world.home, world.project_dir, "project", "fx", STDIO)
    asked: list[str] = []

    def refuse(call: ToolCall, description: str) -> bool:
        asked.append(description)
        return False

    calls = _calls(("c1", "mcp__fx__echo", {"text": "rm -rf"}), ("p1", "mcp__fx__pid", {}))
    scripted_server.queue(openai_stream("", calls), openai_stream("Refused, fine."))
    scripted_server.queue(openai_stream("", _calls(("c2", "mcp__fx__echo", {"text": "x"}))))
    scripted_server.queue(openai_stream("Plan mode."))
    env = _environ(world)
    shared = open_mcp_servers(env, read_settings(env.home, env.project_dir))
    assert shared is not None and not shared.started
    try:
        allow_pid = _options(
            scripted_server, approve=refuse, allowed_tools=frozenset({"mcp__fx__pid"})
        )
        with Session(env, options=allow_pid, mcp=shared) as session:
            session.run("echo something")
            results = _tool_results(session)
        assert asked == ['echo on MCP server fx: {"text": "rm -rf"}']
        assert "the user declined to run mcp__fx__echo" in results["c1"][0]
        with Session(
            env, options=_options(scripted_server, permission_mode="plan"), mcp=shared
        ) as s:
            s.run("again")
            assert "not allowed in plan mode" in _tool_results(s)["c2"][0]
        # still running, the same process: the sessions did not own it
        assert shared.call("fx", "pid", {}).content[0].text == results["p1"][0]
    finally:
        assert shared is not None
        shared.close()
    wait_until(lambda: not process_alive(int(results["p1"][0])), "the shared server to stop")


def test_a_server_that_dies_mid_call_or_never_starts_is_one_line_and_the_turn_goes_on(
    world, scripted_server, caplog
):
    add_server(world.home, world.project_dir, "project", "fx", STDIO)
    add_server(world.home, world.project_dir, "user", "gone", {"command": "/nonexistent/mcp"})
    calls = _calls(("c1", "mcp__fx__die", {}))
    scripted_server.queue(openai_stream("", calls), openai_stream("", _calls(
        ("c2", "mcp__fx__echo", {"text": "still there?"})
    )), openai_stream("The server is gone."))  # fmt: skip
    options = _options(scripted_server, permission_mode="bypassPermissions")
    with Session(_environ(world), options=options) as session:
        assert session.run("crash it").text == "The server is gone."
        results = _tool_results(session)
    assert results["c1"] == (
        "McpCallError: MCP server 'fx' stopped during the call (fixture: crashing on purpose)",
        True,
    )
    assert results["c2"][1] is True and "'fx' is not running" in results["c2"][0]
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert [w for w in warnings if "'gone' did not start" in w] == [
        "MCP server 'gone' did not start (command not found (/nonexistent/mcp)); "
        "going on without it"
    ]
    assert len([w for w in warnings if "'fx' stopped" in w]) == 1


@pytest.fixture
def http_server() -> Iterator[SdkHttpServer]:
    with sdk_http_server() as server:
        yield server


def test_a_streamable_http_server_built_with_the_sdk_from_user_settings(
    world, scripted_server, http_server
):
    entry = {"type": "http", "url": "${FIXTURE_URL}", "headers": {"X-Test": "1"}}
    add_server(world.home, world.project_dir, "user", "web", entry)
    calls = _calls(("c1", "mcp__web__echo", {"text": "über http"}), ("c2", "mcp__web__fail", {}))
    scripted_server.queue(openai_stream("", calls), openai_stream("Echoed."))
    env = _environ(world)
    env = World(env.home, env.cwd, {**env.environ, "FIXTURE_URL": http_server.url}, env.clock)
    options = _options(scripted_server, allowed_tools=frozenset({"mcp__web"}))
    with Session(env, options=options) as session:
        assert session.run("echo over http").text == "Echoed."
        results = _tool_results(session)
    listed = {
        t["function"]["name"]: t["function"] for t in scripted_server.requests[0].body["tools"]
    }
    assert sorted(n for n in listed if n.startswith("mcp__")) == [
        "mcp__web__echo",
        "mcp__web__fail",
    ]
    assert listed["mcp__web__echo"]["parameters"]["required"] == ["text"]  # the SDK's schema
    assert listed["mcp__web__echo"]["description"] == "[MCP web] Echo the text back."
    assert results["c1"] == ("echo from fixture: über http", False)
    assert results["c2"][1] is True and "the fixture refuses" in results["c2"][0]
    assert http_server.headers and all(h.get("x-test") == "1" for h in http_server.headers)


def test_a_silent_server_is_given_up_after_mcp_timeout(world):
    # reads its input and never answers; it leaves when its input closes, so giving it up does
    # not wait out the SDK's grace period for a server that ignores that (2 s of wall time)
    silent = {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"]}
    add_server(world.home, world.project_dir, "user", "mute", silent)
    lines: list[str] = []
    env = World(world.home, world.cwd, {**world.environ, "MCP_TIMEOUT": "300"}, world.clock)
    servers = configured_servers(
        read_settings(env.home, env.project_dir), env.environ, cwd=env.cwd, warn=lines.append
    )
    assert servers is not None
    try:
        assert servers.tools() == ()
    finally:
        servers.close()
    assert lines == [
        "MCP server 'mute' did not start (no answer within 0.3 s); going on without it"
    ]
    assert servers.timeouts.call == 120
    bad = World(world.home, world.cwd, {"MCP_TOOL_TIMEOUT": "soon"}, world.clock)
    configured_servers(
        read_settings(bad.home, bad.project_dir), bad.environ, cwd=bad.cwd, warn=lines.append
    )
    assert lines[-1] == "MCP_TOOL_TIMEOUT='soon' is not a number of milliseconds; using 120 s"


def test_a_server_that_pages_its_tools_forever_is_cut_off_after_max_pages(world):
    add_server(
        world.home, world.project_dir, "user", "pager", stdio_entry({"FIXTURE_ENDLESS": "1"})
    )
    lines: list[str] = []
    servers = configured_servers(
        read_settings(world.home, world.project_dir),
        world.environ,
        cwd=world.cwd,
        warn=lines.append,
    )
    assert servers is not None
    try:
        names = [tool.spec.name for tool in servers.tools()]
        assert servers.call("pager", "page3", {}).content[0].text.isdigit()  # still serving
    finally:
        servers.close()
    assert names == [f"mcp__pager__page{n}" for n in range(MAX_PAGES)]
    assert lines == []
