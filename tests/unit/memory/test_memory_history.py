"""Memory history core: undo targets (rev or run id), undo, hand edits, validation."""

from __future__ import annotations

import pytest

from mini_letta.errors import FrontmatterError, MemfsError, SecretDetectedError
from mini_letta.memory.history import (
    load_log,
    resolve_undo_rev,
    save_hand_edit,
    undo_commit,
    validate_memory,
)
from support.memory import block_commits, commit_all, git_state, tree_bytes, write_file


def test_history_undo_target_from_rev_or_run_lookup(memory_repo):
    root = memory_repo.path
    first = memory_repo.head_sha()
    write_file(root, "a.md", "---\ndescription: a\n---\n")
    commit_all(root)
    runs = {"run-123": first}
    assert resolve_undo_rev(root, None) == memory_repo.head_sha()
    assert resolve_undo_rev(root, "HEAD~1") == first
    assert resolve_undo_rev(root, "run-123", runs.get) == first
    assert resolve_undo_rev(root, "HEAD", runs.get) == memory_repo.head_sha()
    with pytest.raises(MemfsError, match="not a commit"):
        resolve_undo_rev(root, "run-999", runs.get)


def test_history_undo_reverts_and_first_commit_is_refused(memory_repo):
    root = memory_repo.path
    write_file(root, "a.md", "---\ndescription: a\n---\n")
    commit_all(root, "add a")
    new = undo_commit(root, memory_repo.head_sha())
    assert not (root / "a.md").exists() and new == memory_repo.head_sha()
    assert load_log(root, 1)[0].subject == 'Revert "add a"'
    with pytest.raises(MemfsError, match="first memory commit"):
        undo_commit(root, memory_repo.rev_parse("HEAD~2"))


def test_history_hand_edit_commits_or_changes_nothing(memory_repo):
    root = memory_repo.path
    sha = save_hand_edit(root, "system/human.md", lambda t: t + "- by hand\n", "hand")
    assert sha == memory_repo.head_sha() and load_log(root, 1)[0].subject == "hand"
    assert save_hand_edit(root, "system/human.md", lambda t: t) is None
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(FrontmatterError):
        save_hand_edit(root, "system/human.md", lambda t: "broken")
    with pytest.raises(SecretDetectedError):
        save_hand_edit(root, "system/human.md", lambda t: t + "xoxb-123456789012-abcdefABCDEF\n")
    with pytest.raises(MemfsError, match="'..'"):
        save_hand_edit(root, "../x.md", lambda t: t)
    assert (tree_bytes(root), git_state(root)) == before


def test_history_hand_edit_whose_commit_fails_restores_the_file(memory_repo):
    root = memory_repo.path
    block_commits(root)
    before = (tree_bytes(root), git_state(root))
    with pytest.raises(MemfsError, match="git commit failed"):
        save_hand_edit(root, "system/human.md", lambda t: t + "x\n")
    with pytest.raises(MemfsError, match="git commit failed"):
        save_hand_edit(root, "new.md", lambda t: "---\ndescription: n\n---\n")
    assert (tree_bytes(root), git_state(root)) == before


def test_history_validate_counts_and_sorts(memory_repo):
    root = memory_repo.path
    assert validate_memory(root) == (2, [])
    write_file(root, "z.md", "nope")
    write_file(root, "a/b.md", "---\ndescription: ''\n---\n")
    write_file(root, "image.png", "not checked")
    checked, problems = validate_memory(root)
    assert checked == 4 and [p.path for p in problems] == ["a/b.md", "z.md"]


def test_history_hand_edit_refuses_when_the_file_changed_meanwhile(memory_repo):
    root = memory_repo.path

    def slow_person(text: str) -> str:
        write_file(root, "system/human.md", text + "- the agent wrote this\n")
        commit_all(root, "agent edit")
        return text + "- the person wrote this\n"

    with pytest.raises(MemfsError, match="changed while it was being edited"):
        save_hand_edit(root, "system/human.md", slow_person)
    assert "the agent wrote this" in (root / "system/human.md").read_text()
    assert not memory_repo.is_dirty()
