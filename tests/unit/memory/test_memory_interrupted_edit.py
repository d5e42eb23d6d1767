"""A writer stopped by SIGTERM between writing a memory file and committing it is no dead end.

A real child process runs the memory tool's edit; a `git` first on its PATH holds its
`git commit` until the test has sent SIGTERM (as an MCP host stops its server). The next writer, of
any kind, finishes the edit (its files hold what was planned) or rolls it back, says so, and
carries on: memory is clean and nothing is lost.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.tools.memory_tool import apply_and_commit
from support.agents import fresh_agent
from support.cli import cli_env

EDIT = """
import sys
from pathlib import Path
from mini_letta.tools.memory_tool import apply_and_commit
args = {"command": "insert", "path": "system/human.md", "content": "- likes tea"}
apply_and_commit(Path(sys.argv[1]), "insert", args, "remember tea")
"""

SHIM = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = commit ]; then
    echo $$ > "{marker}"
    while :; do sleep 0.05; done
  fi
done
exec "{git}" "$@"
"""


@pytest.fixture
def memory(world) -> Path:
    return world.home.memory_dir(fresh_agent(world).id)


def _stopped_mid_edit(memory: Path, tmp_path: Path) -> None:
    """Run the edit in a child and SIGTERM it while its `git commit` is held."""
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    marker = tmp_path / "held"
    git = shutil.which("git")
    assert git is not None
    (shim_dir / "git").write_text(SHIM.format(marker=marker, git=git))
    (shim_dir / "git").chmod(0o755)
    env = cli_env(tmp_path / "home")
    env["PATH"] = f"{shim_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
    child = subprocess.Popen([sys.executable, "-c", EDIT, str(memory)], env=env)
    try:
        deadline = time.monotonic() + 30
        while not (marker.exists() and marker.read_text().strip()):
            assert child.poll() is None and time.monotonic() < deadline, "the edit never got to git"
            time.sleep(0.02)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) != 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        held = int(marker.read_text().strip()) if marker.exists() else None
        if held is not None:
            with __import__("contextlib").suppress(ProcessLookupError):
                os.kill(held, signal.SIGKILL)


@pytest.mark.timeout(60)
def test_the_next_memory_edit_finishes_a_sigtermed_one(memory, tmp_path, caplog):
    _stopped_mid_edit(memory, tmp_path)
    repo = GitRepo(memory)
    assert "system/human.md" in repo.changed_paths()  # the state the stopped writer left
    result = apply_and_commit(
        memory,
        "insert",
        {"command": "insert", "path": "system/human.md", "content": "- likes coffee"},
        "remember coffee",
    )
    assert "committed" in result
    from mini_letta.home import memory_journal_file
    from mini_letta.memory.journal import FINISHED_NOTE

    assert repo.changed_paths() == []
    human = (memory / "system" / "human.md").read_text()
    assert "- likes tea" in human and "- likes coffee" in human  # nothing lost
    log = repo.run("log", "--format=%B")
    assert "remember tea" in log and FINISHED_NOTE in log
    assert not memory_journal_file(memory).exists()
    assert "finished the interrupted edit of system/human.md" in caplog.text


@pytest.mark.timeout(60)
def test_any_writer_taking_the_lock_settles_it(memory, tmp_path):
    _stopped_mid_edit(memory, tmp_path)
    with lock_memory(memory):  # a sync, a reflection merge, `memory edit`: all take it
        assert GitRepo(memory).changed_paths() == []


def test_a_half_done_edit_is_rolled_back_and_a_later_hand_edit_kept(memory, caplog):
    """Files that do not hold what the edit planned are put back, unless someone changed them
    since (a person's edit is theirs, and stays)."""
    from mini_letta.memory.journal import begin_edit

    human = memory / "system" / "human.md"
    persona = memory / "system" / "persona.md"
    before_h, before_p = human.read_bytes(), persona.read_bytes()
    planned = {"system/human.md": before_h + b"- planned\n", "system/persona.md": b"planned\n"}
    begin_edit(memory, "an edit", {p: (memory / p).read_bytes() for p in planned}, planned)
    human.write_bytes(planned["system/human.md"])  # written; persona never got written
    with lock_memory(memory):
        pass
    assert human.read_bytes() == before_h and persona.read_bytes() == before_p
    assert GitRepo(memory).changed_paths() == []
    assert "rolled back the interrupted edit" in caplog.text
