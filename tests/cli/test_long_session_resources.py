"""Long-running processes close what they open, when they are done with it, not at a collection.

A real stream-json chat runs with `-W error::ResourceWarning` (support/resources.py;
TRACE_RESOURCES=1 adds tracemalloc, so a warning names where the object was made) through 20
turns that each search (conversations or memory). Between turns the test reads the process's
open descriptors from /proc: the recall index is never left open and nothing accumulates over
the ten turns after the first ten (one descriptor left per turn would show ten). That holds on
every Python; 3.13 and later also warn about an unclosed SQLite connection itself.
`mini-letta mcp` gets the same check over 20 searches and 20 reads and edits in
test_mcp_server.py, in the process that serves the README's configuration.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import IO, Any

import pytest

from support.resources import HAS_PROC, STRICT, index_files, open_files, problems, strict_env

pytestmark = [
    pytest.mark.skipif(not HAS_PROC, reason="reads /proc/<pid>/fd"),
    pytest.mark.timeout(120),  # 40 model steps in a traced process
]

SEARCHES = 20


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
    env = strict_env(home.root)
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
    assert problems(stderr) == [], stderr
    assert max(counts[9:]) <= counts[9], counts  # nothing piles up after the first turns
    assert len(found) == SEARCHES
    assert "system/human.md" in found[0] and "缩进" in found[1]
