"""`mini-letta mcp` through the official MCP client.

One real subprocess, started as the README tells Claude Desktop to start it, serves every tool
and resource, then 20 searches and 20 reads and edits under `-W error::ResourceWarning`
(support/resources.py): between calls the test reads its open descriptors from /proc, so the
recall index is never left open and nothing accumulates over the ten calls after the first
ten. Which agent the command serves without `--agent` is checked in-process, on the server the
command builds (`memory_server`), connected to the SDK's client in memory: a process costs
over a second of CPU importing the SDK before it serves anything.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from support.cli import cli_env
from support.groups import MCP, NO_MCP
from support.resources import (
    HAS_PROC,
    STRICT,
    TRACED_MAIN,
    index_files,
    open_files,
    problems,
    strict_env,
)
from support.secrets import SURFACE_SECRETS

pytestmark = [MCP, NO_MCP]

MCP_CALLS = 20


def _git_log(memory: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(memory), "log", "--format=%s"], capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def _readme_server() -> dict[str, Any]:
    """The README's Claude Desktop entry for mini-letta."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r'```json\n(\{\n  "mcpServers".*?)```', readme, re.S)
    configs = [json.loads(block)["mcpServers"] for block in blocks]
    (server,) = [config["mini-letta"] for config in configs if "mini-letta" in config]
    assert Path(server["command"]).is_absolute() and server["args"][:2] == ["mcp", "--agent"]
    return server  # type: ignore[no-any-return]


def _server_pid() -> int:
    """The `mini-letta mcp` process the MCP client started (a child of this process)."""
    mine = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if fields[1] == mine and b"mcp" in cmdline and TRACED_MAIN.encode() in cmdline:
            return int(stat.parent.name)
    raise AssertionError("the MCP server process was not found")


async def _session(
    server: dict[str, Any], home: Path, cwd: Path, errlog: IO[str], script: Any
) -> Any:
    """`script(client, pid)` against the README's configuration, as Claude Desktop runs it:
    the agent by name, the home from its MINI_LETTA_HOME (the command is this checkout's, with
    every ResourceWarning an error). The server's stderr goes to `errlog`: the SDK's default
    is the `sys.stderr` of the moment its module was first imported, which under pytest may be
    a capture without a descriptor."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    fence = {"GIT_CEILING_DIRECTORIES": str(cwd.parent)}  # never above the test's folder
    env = strict_env(home, {**server["env"], "MINI_LETTA_HOME": str(home), **fence})
    params = StdioServerParameters(
        command=sys.executable, args=[*STRICT, *server["args"]], env=env, cwd=cwd
    )
    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30) as client:
        return await script(client, _server_pid())


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def _calls_leave_nothing_open(client: Any, pid: int) -> dict[str, Any]:
    """A log created, then 20 searches, each followed by an edit, a read or a list."""
    seen: dict[str, Any] = {"counts": [], "index": [], "search": set(), "errors": []}
    create = {"path": "notes/log.md", "description": "A running log", "content": "start"}
    created = await client.call_tool("memory_create", {**create, "reason": "start a log"})
    seen["errors"].append(created.is_error and _text(created))
    for call in range(MCP_CALLS):
        found = await client.call_tool("memory_search", {"query": "vim"})
        seen["search"].add(_text(found))
        if call % 3 == 0:
            edit = {"command": "insert", "path": "notes/log.md", "content": f"entry {call}"}
            other = await client.call_tool("memory_edit", {**edit, "reason": f"entry {call}"})
        elif call % 3 == 1:
            other = await client.call_tool("memory_read", {"path": "notes/log.md"})
        else:
            other = await client.call_tool("memory_list", {})
        if other.is_error:
            seen["errors"].append(_text(other))
        files = open_files(pid)
        seen["index"] += index_files(files)
        seen["counts"].append(len(files))
    seen["log"] = _text(await client.call_tool("memory_read", {"path": "notes/log.md"}))
    return seen


async def _every_tool_and_resource(client: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    found["tools"] = sorted(tool.name for tool in (await client.list_tools()).tools)
    found["list"] = _text(await client.call_tool("memory_list", {}))
    found["read"] = _text(await client.call_tool("memory_read", {"path": "system/human.md"}))
    found["search"] = _text(await client.call_tool("memory_search", {"query": "VIM"}))
    create = {"path": "projects/alpha.md", "description": "Alpha", "content": "uses pnpm"}
    found["create"] = await client.call_tool("memory_create", {**create, "reason": "alpha"})
    edit = {"command": "str_replace", "path": "projects/alpha.md", "reason": "cargo now"}
    edit |= {"old_str": "pnpm", "new_str": "cargo"}
    found["edit"] = await client.call_tool("memory_edit", edit)
    secret = {**create, "path": "notes.md", "content": "key sk-proj-" + "a1B2" * 12}
    found["secret"] = await client.call_tool("memory_create", {**secret, "reason": "oops"})
    found["pasted"] = [
        await client.call_tool("memory_create", {**secret, "content": text, "reason": "x"})
        for text in SURFACE_SECRETS
    ]
    found["missing"] = await client.call_tool("memory_read", {"path": "nope.md"})
    resources = (await client.list_resources()).resources
    found["resources"] = sorted(str(r.uri) for r in resources)
    human = await client.read_resource("memory://system/human.md")
    found["resource"] = human.contents[0].text
    return found


@pytest.mark.skipif(not HAS_PROC, reason="reads /proc/<pid>/fd")
@pytest.mark.timeout(120)  # 40 MCP calls and more in a traced process
def test_the_readmes_configuration_serves_every_tool_and_resource_and_leaves_nothing_open(
    cli, home, project, tmp_path
):
    """One server process, started as the README's Claude Desktop config says, in a folder
    that is not the project: it serves the named agent, 40 calls, every tool and resource."""
    server = _readme_server()
    assert cli("agents", "create", "--name", server["args"][2]).code == 0
    assert cli("chat", "-p", "请记住我喜欢用 vim").code == 0
    memory = Path(cli("memory", "path").stdout.strip())
    elsewhere = tmp_path / "not-the-project"
    elsewhere.mkdir()

    async def script(client: Any, pid: int) -> tuple[dict[str, Any], dict[str, Any]]:
        return await _calls_leave_nothing_open(client, pid), await _every_tool_and_resource(client)

    errlog_path = tmp_path / "mcp-stderr.txt"
    with errlog_path.open("w", encoding="utf-8") as errlog:
        session = _session(server, home.root, elsewhere, errlog, script)
        seen, found = asyncio.run(asyncio.wait_for(session, 120))
    stderr = errlog_path.read_text(encoding="utf-8")
    assert problems(stderr) == [], stderr

    assert seen["errors"] == [False]
    assert seen["search"] == {"system/human.md:4: - 我喜欢用 vim"}
    assert seen["index"] == []
    counts = seen["counts"]
    assert max(counts[9:]) <= counts[9], counts  # nothing piles up after the first calls
    assert seen["log"].count("entry ") == len(range(0, MCP_CALLS, 3))

    assert found["tools"] == [
        "memory_create", "memory_edit", "memory_list", "memory_read", "memory_search"
    ]  # fmt: skip
    assert "system/human.md — What I know about the person I work with." in found["list"]
    assert "- 我喜欢用 vim" in found["read"]
    assert found["search"] == "system/human.md:4: - 我喜欢用 vim"
    assert not found["create"].is_error and "committed" in _text(found["create"])
    assert not found["edit"].is_error
    assert found["secret"].is_error and "secret" in _text(found["secret"]).lower()
    assert "a1B2a1B2" not in _text(found["secret"])
    assert all(r.is_error and "secret" in _text(r).lower() for r in found["pasted"])
    assert found["missing"].is_error and "does not exist" in _text(found["missing"])
    assert found["resources"] == ["memory://system/human.md", "memory://system/persona.md"]
    assert "- 我喜欢用 vim" in found["resource"]
    log = _git_log(memory)
    assert log[:2] == ["cargo now", "alpha"]
    assert "uses cargo" in (memory / "projects" / "alpha.md").read_text(encoding="utf-8")
    assert not (memory / "notes.md").exists()


def test_without_agent_the_command_serves_the_agent_of_the_folder_it_starts_in(
    cli, home, project, tmp_path
):
    """In a subfolder of the project, the project's agent: its searches find what the chat in
    the project remembered. In a folder with no agent (Claude Desktop's, without `--agent`),
    one line and exit 1 before serving."""
    from mcp import Client

    from mini_letta.cli.commands.mcp import memory_server
    from mini_letta.cli.terminal import Terminal
    from mini_letta.cli.world import world_of

    assert cli("chat", "-p", "请记住我喜欢用 vim").code == 0
    sub = project / "src"
    sub.mkdir()
    fence = {"GIT_CEILING_DIRECTORIES": str(tmp_path)}  # never above the test's folder
    streams = (io.StringIO(), io.StringIO(), io.StringIO())
    served = memory_server(world_of(Terminal(*streams, cli_env(home.root, fence), sub)), None)

    async def search() -> str:
        async with Client(served) as client:
            return _text(await client.call_tool("memory_search", {"query": "vim"}))

    assert asyncio.run(asyncio.wait_for(search(), 30)) == "system/human.md:4: - 我喜欢用 vim"
    elsewhere = tmp_path / "not-the-project"
    elsewhere.mkdir()
    alone = cli("mcp", cwd=elsewhere, env=fence)
    assert alone.code == 1 and alone.stdout == ""
    assert alone.stderr.startswith("mini-letta: no agent yet for the project at ")
    assert alone.stderr.count("\n") == 1
