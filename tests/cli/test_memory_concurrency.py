"""Two processes writing one agent's memory at once: every commit lands, nothing is lost.

Both writers are forked from one Python process that has imported the memory tool
(support/forker.py): each is still a process of its own, taking the memory's locks for real,
and both begin writing when the test says go, instead of a process start-up apart."""

from __future__ import annotations

import os

from support.forker import Forker


def test_two_processes_write_memory_at_once(memory_repo, tmp_path):
    count = 8
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    errors = tmp_path / "writers.err"
    preload = ["mini_letta.tools.memory_tool", "mini_letta.tools.base", "mini_letta.clock"]
    forker = Forker("support.forker:memory_writer", preload, env, errors=errors)
    try:
        go = tmp_path / "go"
        for prefix in ("A", "B"):
            forker.start(prefix, {"root": str(memory_repo.path), "count": count, "go": str(go)})
        go.touch()  # both are waiting for it
        codes = [forker.wait(prefix) for prefix in ("A", "B")]
    finally:
        forker.close()
    assert codes == [0, 0], errors.read_text()
    body = (memory_repo.path / "system" / "human.md").read_text(encoding="utf-8")
    for prefix in ("A", "B"):
        lines = [line for line in body.splitlines() if line.startswith(f"- {prefix}-")]
        assert lines == [f"- {prefix}-{i}" for i in range(count)]
    log = memory_repo.run("log", "--format=%s").splitlines()
    assert len(log) == 2 * count + 1
    assert not memory_repo.is_dirty()
