"""`mini-letta mcp` through the official MCP client over stdio: one real subprocess, started as
the README tells Claude Desktop to start it."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from support.cli import cli_env
from support.groups import MCP, NO_MCP
from support.secrets import SURFACE_SECRETS

pytestmark = [MCP, NO_MCP]


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


async def _session(
    server: dict[str, Any], home: Path, cwd: Path, errlog: IO[str], script: Any
) -> Any:
    """`script(client)` against the README's configuration, as Claude Desktop runs it: the
    agent by name, the home from its MINI_LETTA_HOME (the command is this checkout's). The
    server's stderr goes to `errlog`: the SDK's default is the `sys.stderr` of the moment its
    module was first imported, which under pytest may be a capture without a descriptor."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = cli_env(home, {**server["env"], "MINI_LETTA_HOME": str(home)})
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mini_letta", *server["args"]], env=env, cwd=cwd
    )
    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30) as client:
        return await script(client)


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_every_tool_and_resource_through_the_official_client_as_the_readme_configures_it(
    cli, home, project, tmp_path
):
    """One server process, started as the README's Claude Desktop config says, in a folder
    that is not the project: it serves the named agent, every tool and resource."""
    server = _readme_server()
    assert cli("agents", "create", "--name", server["args"][2]).code == 0
    assert cli("chat", "-p", "请记住我喜欢用 vim").code == 0
    memory = Path(cli("memory", "path").stdout.strip())
    elsewhere = tmp_path / "not-the-project"
    elsewhere.mkdir()

    async def script(client: Any) -> dict[str, Any]:
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

    errlog_path = tmp_path / "mcp-stderr.txt"
    with errlog_path.open("w", encoding="utf-8") as errlog:
        session = _session(server, home.root, elsewhere, errlog, script)
        found = asyncio.run(asyncio.wait_for(session, 60))
    assert "Traceback" not in errlog_path.read_text(encoding="utf-8")
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
