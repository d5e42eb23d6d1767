"""memory/gitindex: git's files say a path is unchanged only when `git status` would agree."""

from __future__ import annotations

import os
import subprocess

import pytest

from mini_letta.errors import MemoryEditError
from mini_letta.memory.gitindex import unchanged_by_files
from mini_letta.tools.memory_tool import apply_and_commit
from support.git_calls import git_calls
from support.memory import write_file

HUMAN = "system/human.md"


def _git(root, *args):
    command = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, capture_output=True, check=True).stdout


def _settled(root):
    """Every file's last change a second before the index was written (git records its stat)."""
    for path in root.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            before = path.stat().st_mtime_ns - 1_000_000_000
            os.utime(path, ns=(before, before))
    _git(root, "update-index", "-q", "--refresh")


def test_the_files_answer_only_where_git_status_would_list_nothing(memory_repo):
    root = memory_repo.path
    _settled(root)
    assert unchanged_by_files(root, [HUMAN, "system/persona.md", "new/never.md"]) is True
    text = (root / HUMAN).read_bytes()
    states = {
        "same size, other bytes": lambda: (root / HUMAN).write_bytes(text.upper()),
        "staged, then put back": lambda: (
            (root / HUMAN).write_bytes(text + b"x"), _git(root, "add", HUMAN),
            (root / HUMAN).write_bytes(text),
        ),
        "deleted": lambda: (root / HUMAN).unlink(),
        "deleted from the index only": lambda: _git(root, "rm", "-q", "--cached", HUMAN),
        "made executable": lambda: (root / HUMAN).chmod(0o755),
        "an untracked file": lambda: write_file(root, "new/never.md", "x"),
        "racily clean (index as old as the file)": lambda: os.utime(
            root / ".git" / "index", ns=((root / HUMAN).stat().st_mtime_ns,) * 2
        ),
    }  # fmt: skip
    for name, change in states.items():
        change()
        said = {path: unchanged_by_files(root, [path]) for path in (HUMAN, "new/never.md")}
        assert unchanged_by_files(root, [HUMAN, "new/never.md"]) is None, name
        for path, answer in said.items():  # (git status may rewrite the index: asked last)
            listed = _git(root, "status", "--porcelain", "--", path)
            assert answer is None or not listed, (name, path)
        _git(root, "reset", "-q", "--hard")
        _git(root, "clean", "-fdq")
        _settled(root)
        assert unchanged_by_files(root, [HUMAN]) is True, name


def test_packed_objects_and_a_damaged_index_are_left_to_git(memory_repo):
    root = memory_repo.path
    _settled(root)
    (root / ".git" / "index").write_bytes(b"DIRC\0\0\0\2\0\0\0\7short")
    assert unchanged_by_files(root, [HUMAN]) is None
    (root / ".git" / "index").unlink()
    _git(root, "reset", "-q")  # the index again, from HEAD
    _settled(root)
    assert unchanged_by_files(root, [HUMAN]) is True
    _git(root, "gc", "-q")  # HEAD's commit and trees go into a pack: only git reads that
    assert unchanged_by_files(root, [HUMAN]) is None


def test_a_memory_tool_edit_of_a_settled_file_is_one_git_process(memory_repo):
    root = memory_repo.path
    _settled(root)
    args = {"command": "insert", "path": HUMAN, "content": "- tea"}
    with git_calls() as calls:
        apply_and_commit(root, "insert", args, "tea")
    assert calls == ["commit"]
    (root / HUMAN).write_bytes((root / HUMAN).read_bytes() + b"by hand\n")
    with git_calls() as calls, pytest.raises(MemoryEditError, match="uncommitted changes"):
        apply_and_commit(root, "insert", {**args, "content": "- more"}, "more")
    assert calls == ["status"]  # the files could not say: git did, and it refused
