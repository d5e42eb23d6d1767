"""Every text that memory stores or commits is scanned: a credential never reaches git history.

Each writer is driven against a real repository; the secret is refused by kind (never echoed)
and no git object anywhere in the repository (`git log --all -p`, or any loose blob) holds it.
"""

from __future__ import annotations

import subprocess

import pytest

from mini_letta.errors import MemfsError, SecretDetectedError
from mini_letta.memory.history import save_hand_edit, undo_commit
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.finalise import finalise_worktree
from mini_letta.reflection.run.worktree import create_worktree, remove_worktree
from mini_letta.tools.base import ToolContext
from mini_letta.tools.memory_tool import MemoryTool
from support.clock import FakeClock
from support.memory import block_commits, commit_all, git_state, tree_bytes, write_file

HUMAN = "system/human.md"
KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
NOTE = "---\ndescription: a note\n---\nplain text\n"


def _git(root, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def _no_trace(root, secret: str = KEY) -> None:
    """Neither the history of any ref nor any object in the repository holds the secret."""
    assert secret not in _git(root, "log", "--all", "-p", "--format=%H%n%B")
    objects = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    assert secret.encode() not in objects


def _refused(caught: pytest.ExceptionInfo[SecretDetectedError], where: str) -> None:
    message = str(caught.value)
    assert caught.value.kind == "OpenAI API key" and "OpenAI API key" in message
    assert where in message and KEY not in message


MEMORY_TOOL_CALLS = {
    "create": {"command": "create", "path": "n.md", "description": "n", "content": "x"},
    "insert": {"command": "insert", "path": HUMAN, "content": "- tabs"},
    "str_replace": {"command": "str_replace", "path": HUMAN, "old_str": "Nothing", "new_str": "A"},
    "update_description": {"command": "update_description", "path": HUMAN, "description": "me"},
    "rename": {"command": "rename", "path": HUMAN, "new_path": "system/person.md"},
    "delete": {"command": "delete", "path": HUMAN},
}


@pytest.mark.parametrize("args", MEMORY_TOOL_CALLS.values(), ids=MEMORY_TOOL_CALLS.keys())
def test_memory_tool_reason_with_a_secret_is_refused(memory_repo, args):
    root = memory_repo.path
    ctx = ToolContext(cwd=root, clock=FakeClock(), memory_dir=root)
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(SecretDetectedError) as caught:
        MemoryTool().run({**args, "reason": f"saved the key {KEY} for later"}, ctx)
    _refused(caught, "the reason")
    assert (tree_bytes(root), git_state(root)) == before
    _no_trace(root)


def test_commit_gate_refuses_a_message_before_anything_is_staged(memory_repo):
    root = memory_repo.path
    write_file(root, "n.md", NOTE)
    with pytest.raises(SecretDetectedError) as caught:
        memory_repo.commit_paths(["n.md"], f"note\n\nkey: {KEY}")
    _refused(caught, "the commit message")
    assert _git(root, "status", "--porcelain") == "?? n.md\n"
    _no_trace(root)


def test_hand_edit_of_a_path_holding_a_secret_is_refused(memory_repo):
    root = memory_repo.path
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(SecretDetectedError) as caught:
        save_hand_edit(root, f"notes/{KEY}.md", lambda text: NOTE)
    _refused(caught, "the path")
    assert (tree_bytes(root), git_state(root)) == before
    _no_trace(root)


def test_hand_edit_message_with_a_secret_is_refused(memory_repo):
    root = memory_repo.path
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(SecretDetectedError) as caught:
        save_hand_edit(root, HUMAN, lambda text: text + "- tabs\n", f"use {KEY}")
    _refused(caught, "the commit message")
    assert (tree_bytes(root), git_state(root)) == before
    _no_trace(root)


def test_undo_never_copies_a_secret_subject_into_a_new_commit(memory_repo):
    """A commit made outside mini-letta has a credential in its subject; its revert would too."""
    root = memory_repo.path
    write_file(root, "n.md", NOTE)
    commit_all(root, f"add note, deploy with {KEY}")
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(SecretDetectedError) as caught:
        undo_commit(root, memory_repo.head_sha())
    _refused(caught, "the commit message")
    assert (tree_bytes(root), git_state(root)) == before
    assert _git(root, "log", "--all", "--format=%s").count(KEY) == 1  # only the planted one


def test_undo_never_restores_a_removed_secret(memory_repo):
    root = memory_repo.path
    write_file(root, "n.md", NOTE + f"key {KEY}\n")
    commit_all(root, "planted outside mini-letta")
    write_file(root, "n.md", NOTE)
    commit_all(root, "remove the key")
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(SecretDetectedError) as caught:
        undo_commit(root, memory_repo.head_sha())
    _refused(caught, "n.md")
    assert (tree_bytes(root), git_state(root)) == before


def test_reflection_merge_never_carries_a_secret_subject_into_main(memory_repo, tmp_path):
    root = memory_repo.path
    wt = create_worktree(memory_repo, tmp_path / "worktrees", "20261008160658-00000001")
    try:
        write_file(wt.path, HUMAN, (root / HUMAN).read_text() + "- tabs\n")
        _git(wt.path, "commit", "-qam", f"reflection: {KEY}")  # not through our tools
        done = finalise_worktree(memory_repo, wt, agent_error=None, merge="auto")
    finally:
        remove_worktree(memory_repo, wt)
    assert done.status == "failed" and "OpenAI API key" in done.message
    assert KEY not in done.message
    assert KEY not in _git(root, "log", "main", "-p", "--format=%B")
    assert GitRepo(root).changed_paths() == []


def test_undo_whose_commit_fails_leaves_no_restored_file_behind(memory_repo):
    root = memory_repo.path
    write_file(root, "n.md", NOTE)
    commit_all(root, "add n")
    (root / "n.md").unlink()
    commit_all(root, "remove n")
    block_commits(root)
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(MemfsError):
        undo_commit(root, memory_repo.head_sha())
    assert (tree_bytes(root), git_state(root)) == before
