"""Stale git locks in memory's git (`index.lock`, `HEAD.lock`, a ref's `.lock`): cleared under the
memory lock, a live one left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from mini_letta.errors import GitError
from mini_letta.memory.history import undo_commit
from mini_letta.reflection.run.finalise import merge_branch
from mini_letta.reflection.run.worktree import create_worktree
from mini_letta.tools.base import ToolContext
from mini_letta.tools.memory_tool import MemoryTool
from support.clock import FakeClock
from support.memory import commit_all, write_file

HUMAN = "system/human.md"


def _stale_lock(git_dir, age: float = 120.0, name: str = "index.lock"):
    lock = git_dir / name
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    then = time.time() - age
    os.utime(lock, (then, then))
    return lock


def _insert(memory_dir, text="- likes tea"):
    ctx = ToolContext(cwd=memory_dir, clock=FakeClock(), memory_dir=memory_dir)
    return MemoryTool().run(
        {"command": "insert", "path": HUMAN, "content": text, "reason": "remember"}, ctx
    )


def test_memory_tool_clears_a_stale_index_lock_and_commits(memory_repo, caplog):
    lock = _stale_lock(memory_repo.path / ".git")
    before = memory_repo.head_sha()
    result = _insert(memory_repo.path)
    assert "committed" in result.content
    assert memory_repo.head_sha() != before and not lock.exists()
    assert any("index.lock" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "name",
    ["HEAD.lock", "refs/heads/main.lock", "refs/remotes/origin/main.lock", "packed-refs.lock"],
)
def test_a_stale_ref_lock_a_killed_git_left_is_cleared_too(memory_repo, name):
    git_dir = memory_repo.path / ".git"
    _git_in(memory_repo.path, "update-ref", "refs/remotes/origin/main", "HEAD")
    lock = _stale_lock(git_dir, name=name)
    result = _insert(memory_repo.path)
    assert "committed" in result.content and not lock.exists()
    _git_in(memory_repo.path, "update-ref", "refs/remotes/origin/main", "HEAD")


def _git_in(repo, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_undo_clears_a_stale_index_lock(memory_repo):
    write_file(memory_repo.path, "a.md", "---\ndescription: a\n---\n")
    commit_all(memory_repo.path, "add a")
    lock = _stale_lock(memory_repo.path / ".git")
    undo_commit(memory_repo.path, memory_repo.head_sha())
    assert not (memory_repo.path / "a.md").exists() and not lock.exists()


def test_reflection_merge_clears_a_stale_index_lock(memory_repo, tmp_path):
    worktree = create_worktree(memory_repo, tmp_path / "worktrees", "20261008160658-00000001")
    write_file(worktree.path, "b.md", "---\ndescription: b\n---\n")
    commit_all(worktree.path, "add b")
    lock = _stale_lock(memory_repo.path / ".git")
    assert merge_branch(memory_repo, worktree).merged
    assert (memory_repo.path / "b.md").exists() and not lock.exists()


def test_a_worktrees_own_stale_index_lock_is_cleared(memory_repo, tmp_path):
    worktree = create_worktree(memory_repo, tmp_path / "worktrees", "20261008160658-00000002")
    (git_dir,) = (memory_repo.path / ".git" / "worktrees").iterdir()
    lock = _stale_lock(git_dir)
    assert "committed" in _insert(worktree.path).content
    assert not lock.exists()


_HOLD = "import sys; f = open(sys.argv[1], 'ab'); print('open', flush=True); sys.stdin.read()"


def test_an_index_lock_a_live_process_has_open_is_left_alone_with_a_clear_error(memory_repo):
    lock = _stale_lock(memory_repo.path / ".git")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "open\n"
        with pytest.raises(GitError) as err:
            _insert(memory_repo.path)
        message = str(err.value)
        assert str(lock) in message and "\n" not in message
        assert lock.exists()
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
        holder.stdout.close()


def test_a_fresh_index_lock_is_left_alone(memory_repo):
    lock = _stale_lock(memory_repo.path / ".git", age=0)
    with pytest.raises(GitError, match="another git seems to be using the memory repository"):
        _insert(memory_repo.path)
    assert lock.exists()
