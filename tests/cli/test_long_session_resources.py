"""Long-running processes close what they open, when they are done with it, not at a collection.

Two real processes run with `-W error::ResourceWarning` (TRACE_RESOURCES=1 adds tracemalloc,
so a warning names where the object was made): a stream-json chat whose 20 turns each search
(conversations or memory), and `mini-letta mcp` driven by the official MCP client through 20
searches and 20 reads and edits. Between calls the test reads the process's
open descriptors from /proc: the recall index is never left open and nothing accumulates over
the ten calls after the first ten (one descriptor left per call would show ten). That
holds on every Python; 3.13 and later also warn about an unclosed SQLite connection itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from support.cli import cli_env
from support.groups import MCP

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/<pid>/fd"),
    pytest.mark.timeout(120),  # 40 model steps or 40 MCP calls in a traced process
]

# `mini-letta ARGS` with every ResourceWarning an error. Tracing where each object was made
# (tracemalloc, one frame) doubles the processes' CPU, so it is on only when a failure is
# being read: TRACE_RESOURCES=1 in the test run's environment. Then `mini-letta mcp` imports
# the MCP SDK before tracing starts (tracing a large import takes minutes on a busy machine);
# untraced, each process imports only what its command does (the chat never loads the SDK).
TRACED_MAIN = """
import os, runpy, sys, tracemalloc
sys.argv = ["mini-letta", *sys.argv[1:]]
if os.environ.get("TRACE_RESOURCES"):
    if "mcp" in sys.argv:
        import mcp.server.mcpserver
    tracemalloc.start(1)
runpy.run_module("mini_letta", run_name="__main__", alter_sys=True)
"""
STRICT = ["-W", "error::ResourceWarning", "-c", TRACED_MAIN]
SEARCHES = 20
MCP_CALLS = 20


def open_files(pid: int) -> list[str]:
    """What the process has open: a path, or `socket:[…]`, `pipe:[…]`, `anon_inode:…`."""
    found = []
    folder = Path(f"/proc/{pid}/fd")
    for fd in os.listdir(folder):
        try:
            found.append(os.readlink(folder / fd))
        except OSError:  # closed meanwhile
            continue
    return sorted(found)


def index_files(files: list[str]) -> list[str]:
    return [name for name in files if "search-index.sqlite" in name]


def _problems(stderr: str) -> list[str]:
    """Lines of a warning the process printed (unraisable ones land on stderr)."""
    needles = ("ResourceWarning", "Exception ignored", "unclosed", "Traceback")
    found = [line for line in stderr.splitlines() if any(n in line for n in needles)]
    return found + [HINT] if found else []


HINT = "(run again with TRACE_RESOURCES=1 to see where each object was made)"


def _env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    trace = os.environ.get("TRACE_RESOURCES")
    return cli_env(home, {**(extra or {}), **({"TRACE_RESOURCES": trace} if trace else {})})


# -- 20 searches in one chat ----------------------------------------------------------------


def _read_turn(stdout: IO[str], found: list[str]) -> dict[str, Any]:
    """Events up to the turn's result; each tool result's text goes to `found`."""
    while line := stdout.readline():
        event = json.loads(line)
        if event["type"] == "tool_result":
            found.append(event["content"])
        if event["type"] == "result":
            return event  # type: ignore[no-any-return]
    raise AssertionError("the chat ended before answering")


def test_a_chat_of_20_searches_leaves_nothing_open(cli, home, project, tmp_path):
    assert cli("chat", "-p", "我习惯用 tabs 缩进，项目用 pnpm").code == 0  # something to find
    script = []
    for turn in range(SEARCHES):
        tool = "conversation_search" if turn % 2 else "memory_search"
        query = {"query": "缩进" if turn % 2 else "person"}
        script += [{"toolCalls": [{"name": tool, "arguments": query}]}, f"answer {turn}"]
    (tmp_path / "script.json").write_text(json.dumps(script), encoding="utf-8")
    env = _env(home.root)
    args = ["chat", "--input-format", "stream-json", "--output-format", "stream-json"]
    args += [
        "--model",
        f"script:{tmp_path / 'script.json'}",
        "--tools",
        "memory_search,conversation_search",
    ]
    errlog_path = tmp_path / "chat-stderr.txt"
    counts: list[int] = []
    found: list[str] = []
    with (
        errlog_path.open("w", encoding="utf-8") as errlog,
        subprocess.Popen(
            [sys.executable, *STRICT, *args],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            encoding="utf-8",
        ) as child,
    ):
        assert child.stdin is not None and child.stdout is not None
        try:
            for turn in range(SEARCHES):
                child.stdin.write(json.dumps(f"search {turn}") + "\n")
                child.stdin.flush()
                result = _read_turn(child.stdout, found)
                assert result["result"] == f"answer {turn}", result
                files = open_files(child.pid)
                assert index_files(files) == [], f"turn {turn}: {files}"
                counts.append(len(files))
            child.stdin.close()
            code = child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
    stderr = errlog_path.read_text(encoding="utf-8")
    assert code == 0, stderr
    assert _problems(stderr) == [], stderr
    assert max(counts[9:]) <= counts[9], counts  # nothing piles up after the first turns
    assert len(found) == SEARCHES
    assert "system/human.md" in found[0] and "缩进" in found[1]


# -- 20 searches and 20 other calls over MCP -------------------------------------------------


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


def _text(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


async def _mcp_session(home: Path, cwd: Path, errlog: IO[str], fence: Path) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=[*STRICT, "mcp"],
        env=_env(home, {"GIT_CEILING_DIRECTORIES": str(fence)}),  # never above the test's folder
        cwd=cwd,
    )
    seen: dict[str, Any] = {"counts": [], "index": [], "search": set(), "errors": []}
    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30) as client:
        pid = _server_pid()
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


@MCP
def test_an_mcp_session_of_40_calls_leaves_nothing_open(cli, home, project, tmp_path):
    """Started in a subfolder of the project, `mini-letta mcp` serves the project's agent: its
    searches find what the chat in the project remembered."""
    pytest.importorskip("mcp")
    assert cli("chat", "-p", "请记住我喜欢用 vim").code == 0
    sub = project / "src"
    sub.mkdir()
    errlog_path = tmp_path / "mcp-stderr.txt"
    with errlog_path.open("w", encoding="utf-8") as errlog:
        session = _mcp_session(home.root, sub, errlog, tmp_path)
        seen = asyncio.run(asyncio.wait_for(session, 120))
    stderr = errlog_path.read_text(encoding="utf-8")
    assert _problems(stderr) == [], stderr
    assert seen["errors"] == [False]
    assert seen["search"] == {"system/human.md:4: - 我喜欢用 vim"}
    assert seen["index"] == []
    counts = seen["counts"]
    assert max(counts[9:]) <= counts[9], counts
    assert seen["log"].count("entry ") == len(range(0, MCP_CALLS, 3))
