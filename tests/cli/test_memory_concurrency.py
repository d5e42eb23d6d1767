"""Two processes writing one agent's memory at once: every commit lands, nothing is lost."""

from __future__ import annotations

import os
import subprocess
import sys

from support.cli import SRC

WRITER = """
import sys
from pathlib import Path
from mini_letta.clock import SystemClock
from mini_letta.tools.base import ToolContext
from mini_letta.tools.memory_tool import MemoryTool

root, prefix, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
ctx = ToolContext(cwd=root, clock=SystemClock(), memory_dir=root)
tool = MemoryTool()
for i in range(count):
    args = {"command": "insert", "path": "system/human.md", "content": f"- {prefix}-{i}",
            "reason": f"{prefix} {i}"}
    result = tool.run(args, ctx)
    assert not result.is_error, result.content
"""


def test_two_processes_write_memory_at_once(memory_repo):
    count = 8
    env = {"PYTHONPATH": str(SRC), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(memory_repo.path), prefix, str(count)],
            env=env, stderr=subprocess.PIPE, text=True,
        )
        for prefix in ("A", "B")
    ]  # fmt: skip
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    body = (memory_repo.path / "system" / "human.md").read_text(encoding="utf-8")
    for prefix in ("A", "B"):
        lines = [line for line in body.splitlines() if line.startswith(f"- {prefix}-")]
        assert lines == [f"- {prefix}-{i}" for i in range(count)]
    log = memory_repo.run("log", "--format=%s").splitlines()
    assert len(log) == 2 * count + 1
    assert not memory_repo.is_dirty()
