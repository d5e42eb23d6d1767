"""Finalising a reflection worktree: every status reached for real, in the SPEC's order."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.finalise import (
    MergeAttempt,
    ReviewReport,
    finalise_worktree,
    merge_branch,
)
from mini_letta.reflection.run.worktree import (
    check_memory_repo,
    clean_stale_worktrees,
    create_worktree,
    remove_worktree,
)
from support.reflection_kit import git

HUMAN = "system/human.md"


@pytest.fixture
def worktrees(tmp_path) -> Path:
    return tmp_path / "memory-worktrees"


def _edit(repo: GitRepo, rel: str, old: str, new: str) -> None:
    path = repo.path / rel
    path.write_text(path.read_text().replace(old, new))


def _commit(repo: GitRepo, message: str = "reflection: update") -> None:
    repo.commit_paths(repo.changed_paths(), message)


def _append(repo: GitRepo, line: str, rel: str = HUMAN) -> None:
    path = repo.path / rel
    path.write_text(path.read_text() + line + "\n")


def _gone(parent: GitRepo, wt) -> bool:
    """No folder, no branch, and git has no record of the worktree left to prune."""
    branches = git(parent.path, "branch", "--list", f"reflection/{wt.run_id}").strip()
    listed = git(parent.path, "worktree", "list", "--porcelain")
    records = parent.path / ".git" / "worktrees"
    return (
        not wt.path.exists() and branches == "" and wt.path.name not in listed
        and not (records.exists() and any(records.iterdir()))
    )  # fmt: skip


def _old_worktree(parent: GitRepo, worktrees: Path, run_id: str) -> Path:
    """A worktree as versions before detached worktrees made it: on `reflection/<run-id>`."""
    path = worktrees / f"reflection-{run_id}"
    git(parent.path, "worktree", "add", "-q", "-b", f"reflection/{run_id}", str(path), "HEAD")
    return path


def _finalise(parent, wt, **kwargs):
    kwargs.setdefault("agent_error", None)
    kwargs.setdefault("merge", "auto")
    try:
        return finalise_worktree(parent, wt, **kwargs)
    finally:
        remove_worktree(parent, wt)


def test_dirty_worktree_comes_first(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000001")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    (wt.path / "system" / "notes.md").write_text("---\ndescription: x\n---\nuncommitted\n")
    done = _finalise(memory_repo, wt, agent_error="the model failed")
    assert done.status == "dirty_uncommitted"
    assert "system/notes.md" in done.message
    assert _gone(memory_repo, wt)
    assert "tabs" not in (memory_repo.path / HUMAN).read_text()


@pytest.mark.parametrize("with_commit", [False, True], ids=["clean", "with-commit"])
def test_failed_agent_is_failed_even_when_clean(memory_repo, worktrees, with_commit):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000002")
    if with_commit:
        _append(wt.repo, "- half done")
        _commit(wt.repo)
    done = _finalise(memory_repo, wt, agent_error="the model failed: boom")
    assert done.status == "failed"
    assert "the model failed: boom" in done.message
    assert _gone(memory_repo, wt)
    assert "half done" not in (memory_repo.path / HUMAN).read_text()


def test_no_commits_is_no_changes(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000003")
    done = _finalise(memory_repo, wt)
    assert (done.status, done.message, done.commit_count) == (
        "no_changes",
        "No memory changes were needed.",
        0,
    )
    assert _gone(memory_repo, wt)


def test_parent_with_an_untracked_file_is_parent_dirty(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000004")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    (memory_repo.path / "scratch.md").write_text("mine")
    done = _finalise(memory_repo, wt)
    assert done.status == "parent_dirty" and "scratch.md" in done.message
    assert (memory_repo.path / "scratch.md").read_text() == "mine"
    assert git(memory_repo.path, "status", "--porcelain").strip() == "?? scratch.md"
    assert _gone(memory_repo, wt)


def test_auto_merge_fast_forwards(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000005")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    tip = wt.repo.head_sha()
    done = _finalise(memory_repo, wt)
    assert (done.status, done.message) == ("merged", "Merged 1 reflection commit(s).")
    assert memory_repo.head_sha() == tip == done.merge_commit
    assert not memory_repo.is_dirty() and _gone(memory_repo, wt)


def test_auto_merge_makes_a_merge_commit_when_main_moved(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000006")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo, "reflection: one")
    _append(wt.repo, "- Decision: pnpm")
    _commit(wt.repo, "reflection: two")
    _append(memory_repo, "persona note", "system/persona.md")
    _commit(memory_repo, "primary agent edit")
    done = _finalise(memory_repo, wt)
    assert done.message == "Merged 2 reflection commit(s)."
    parents = git(memory_repo.path, "log", "-1", "--format=%P").split()
    assert len(parents) == 2
    assert git(memory_repo.path, "log", "-1", "--format=%s").strip() == "merge(reflection): two"
    human = (memory_repo.path / HUMAN).read_text()
    assert "tabs" in human and "pnpm" in human
    assert "persona note" in (memory_repo.path / "system/persona.md").read_text()


def test_both_sides_editing_one_line_is_a_conflict_and_is_aborted(memory_repo, worktrees):
    original = (memory_repo.path / HUMAN).read_text()
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000007")
    _edit(wt.repo, HUMAN, "Nothing yet", "The reflection says")
    _commit(wt.repo)
    _edit(memory_repo, HUMAN, "Nothing yet", "The user says")
    _commit(memory_repo, "primary agent edit")
    mine = (memory_repo.path / HUMAN).read_text()
    head = memory_repo.head_sha()
    done = _finalise(memory_repo, wt)
    assert done.status == "merge_conflict" and HUMAN in done.message
    assert memory_repo.head_sha() == head and (memory_repo.path / HUMAN).read_text() == mine
    assert mine != original
    assert not memory_repo.is_dirty() and _gone(memory_repo, wt)


def _reviewer(action):
    calls = []

    def review(wt, commits):
        calls.append(commits)
        return action(wt)

    return review, calls


def test_explicit_merge_done_by_the_reviewer(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000008")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    review, calls = _reviewer(lambda w: ReviewReport(merge_branch(memory_repo, w), "fine"))
    done = _finalise(memory_repo, wt, merge="explicit", review=review)
    assert calls == [1]
    assert (done.status, done.message) == ("merged", "Merged 1 reflection commit(s).")


def test_explicit_merge_not_done_is_not_merged(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000009")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    head = memory_repo.head_sha()
    review, _ = _reviewer(lambda w: ReviewReport(None, "not convinced"))
    done = _finalise(memory_repo, wt, merge="explicit", review=review)
    assert done.status == "not_merged" and "not convinced" in done.message
    assert memory_repo.head_sha() == head and _gone(memory_repo, wt)


def test_explicit_claimed_merge_is_verified(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000010")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    review, _ = _reviewer(lambda w: ReviewReport(MergeAttempt(True), "merged it, honest"))
    done = _finalise(memory_repo, wt, merge="explicit", review=review)
    assert done.status == "not_merged"


def test_explicit_merge_that_reported_an_error_but_merged_is_merged(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000011")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)

    def action(w):
        merge_branch(memory_repo, w)
        return ReviewReport(None, error="the model failed after merging")

    review, _ = _reviewer(action)
    assert _finalise(memory_repo, wt, merge="explicit", review=review).status == "merged"


def test_explicit_review_that_failed_is_failed(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000012")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    review, _ = _reviewer(lambda w: ReviewReport(None, error="the model failed: 500"))
    done = _finalise(memory_repo, wt, merge="explicit", review=review)
    assert done.status == "failed" and "merge review failed" in done.message


def test_explicit_review_that_dirtied_the_parent_is_parent_dirty(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000013")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)

    def action(w):
        (memory_repo.path / "stray.md").write_text("x")
        return ReviewReport(None)

    review, _ = _reviewer(action)
    assert _finalise(memory_repo, wt, merge="explicit", review=review).status == "parent_dirty"


def test_parent_dirty_is_checked_before_the_review(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000014")
    _append(wt.repo, "- Preference: tabs")
    _commit(wt.repo)
    (memory_repo.path / "scratch.md").write_text("x")
    review, calls = _reviewer(lambda w: ReviewReport(None))
    assert _finalise(memory_repo, wt, merge="explicit", review=review).status == "parent_dirty"
    assert calls == []


# ----- the parent repository and leftovers --------------------------------------------------


def test_detached_head_at_main_is_reattached(memory_repo):
    git(memory_repo.path, "checkout", "-q", "--detach", "main")
    assert check_memory_repo(memory_repo) is None
    assert memory_repo.current_branch() == "main"


def test_detached_head_elsewhere_is_refused_and_left_alone(memory_repo):
    _append(memory_repo, "extra")
    _commit(memory_repo, "second")
    git(memory_repo.path, "checkout", "-q", "--detach", "HEAD~1")
    problem = check_memory_repo(memory_repo)
    assert problem is not None and "detached HEAD" in problem and "switch main" in problem
    assert memory_repo.current_branch() is None


def test_missing_main_is_refused(memory_repo):
    git(memory_repo.path, "branch", "-m", "main", "master")
    problem = check_memory_repo(memory_repo)
    assert problem is not None and "no branch main" in problem and "branch -m main" in problem


def test_other_branch_is_refused(memory_repo):
    git(memory_repo.path, "switch", "-q", "-c", "experiment")
    problem = check_memory_repo(memory_repo)
    assert problem is not None and "on branch experiment" in problem


def test_no_repository_is_refused(tmp_path):
    problem = check_memory_repo(GitRepo(tmp_path / "nowhere"))
    assert problem is not None and "no memory repository" in problem


def test_stale_worktrees_and_branches_are_cleaned(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000015")
    _append(wt.repo, "- crashed mid-run")
    _commit(wt.repo)  # a crashed run's commit: on no branch, removed with its worktree
    old = _old_worktree(memory_repo, worktrees, "20261008160658-00000016")
    shutil.rmtree(old)  # a folder deleted by hand, its branch and registration left
    removed = clean_stale_worktrees(memory_repo, worktrees)
    assert removed == [f"reflection-{wt.run_id}", "reflection/20261008160658-00000016"]
    assert _gone(memory_repo, wt) and not old.exists()
    assert git(memory_repo.path, "branch", "--list", "reflection/*").strip() == ""
    listed = git(memory_repo.path, "worktree", "list", "--porcelain")
    assert "memory-worktrees" not in listed
    assert memory_repo.current_branch() == "main" and not memory_repo.changed_paths()


def test_remove_worktree_tolerates_missing_pieces(memory_repo, worktrees):
    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000017")
    remove_worktree(memory_repo, wt)
    remove_worktree(memory_repo, wt)  # twice: nothing left to remove, no error
    assert _gone(memory_repo, wt)


def test_a_packed_stale_branch_is_found_and_a_clean_repo_asks_git_nothing(memory_repo, worktrees):
    from support.git_calls import git_calls

    with git_calls() as calls:
        assert clean_stale_worktrees(memory_repo, worktrees) == []
    assert calls == []  # no worktrees/ entry, no reflection/ ref: nothing to prune or list
    path = _old_worktree(memory_repo, worktrees, "20261008160658-00000018")
    git(memory_repo.path, "worktree", "remove", "--force", str(path))
    git(memory_repo.path, "pack-refs", "--all")  # the branch now lives in packed-refs only
    branch = "reflection/20261008160658-00000018"
    assert not (memory_repo.path / ".git" / "refs" / "heads" / branch).exists()
    assert clean_stale_worktrees(memory_repo, worktrees) == [branch]
    assert git(memory_repo.path, "branch", "--list", "reflection/*").strip() == ""


def test_a_log_the_branch_does_not_confirm_leaves_the_count_to_git(memory_repo, worktrees):
    """The tools' log says no commit, but the branch has two (made without the tools): the
    count comes from git, and both are merged."""
    from mini_letta.reflection.run.worktree import WorktreeLog

    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000031")
    _append(wt.repo, "- one")
    _commit(wt.repo, "reflection: first")
    _append(wt.repo, "- two")
    _commit(wt.repo, "reflection: second")
    done = _finalise(memory_repo, wt, log=WorktreeLog())
    assert (done.status, done.commit_count) == ("merged", 2)
    assert "- two" in (memory_repo.path / HUMAN).read_text()


def _git_dir_files(repo: GitRepo) -> set[str]:
    root = repo.path / ".git"
    skip = ("objects/", "logs/")  # the run's commits; HEAD's reflog
    found = {p.relative_to(root).as_posix() for p in root.rglob("*")}
    return {name for name in found if not name.startswith(skip)}


def test_a_worktree_is_removed_as_git_worktree_remove_leaves_it(memory_repo, worktrees):
    """Deleting the folder and git's record of it in this process leaves the parent's git
    dir as `git worktree remove --force --force` does: nothing for `prune` to find."""
    from mini_letta.reflection.run.worktree import unlinked_checkout

    before = _git_dir_files(memory_repo)
    by_git = create_worktree(memory_repo, worktrees, "20261008160658-00000040")
    _append(by_git.repo, "- unsaved")
    git(memory_repo.path, "worktree", "remove", "--force", "--force", str(by_git.path))
    after_git = _git_dir_files(memory_repo)
    ours = create_worktree(memory_repo, worktrees, "20261008160658-00000041")
    _append(ours.repo, "- committed")
    _commit(ours.repo)
    _append(ours.repo, "- unsaved")
    git(ours.path, "worktree", "lock", str(ours.path))  # git needs --force twice for this one
    other = create_worktree(memory_repo, worktrees, "20261008160658-00000043")
    assert unlinked_checkout(memory_repo, ours.path)
    assert other.path.name in git(memory_repo.path, "worktree", "list", "--porcelain")
    assert other.repo.head_sha() == other.base  # the other one is untouched
    assert unlinked_checkout(memory_repo, other.path)  # the last one takes worktrees/ along
    assert _git_dir_files(memory_repo) == after_git == before
    assert not ours.path.exists() and worktrees.is_dir()
    assert git(memory_repo.path, "worktree", "prune", "--dry-run", "-v") == ""
    assert git(memory_repo.path, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_worktree_the_files_do_not_tie_to_the_parent_is_left_to_git(memory_repo, worktrees):
    """A `.git` file naming a record outside the parent's `worktrees/`, or a record that names
    another folder back: nothing is deleted in this process (git must do it)."""
    from mini_letta.reflection.run.worktree import unlinked_checkout

    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000042")
    dot_git = wt.path / ".git"
    record = Path(dot_git.read_text().removeprefix("gitdir: ").strip())
    elsewhere = worktrees / "elsewhere"
    shutil.copytree(record, elsewhere)
    dot_git.write_text(f"gitdir: {elsewhere}\n")
    assert not unlinked_checkout(memory_repo, wt.path)
    assert wt.path.is_dir() and elsewhere.is_dir() and record.is_dir()
    dot_git.write_text(f"gitdir: {record}\n")
    (record / "gitdir").write_text(f"{worktrees / 'other' / '.git'}\n")
    assert not unlinked_checkout(memory_repo, wt.path)
    assert wt.path.is_dir() and record.is_dir()
    from support.git_calls import git_calls

    with git_calls() as calls:
        remove_worktree(memory_repo, wt)  # git's way: the folder deleted, the record pruned
    assert calls[0] == "worktree" and calls[-1] == "worktree"  # remove (refused), then prune
    assert _gone(memory_repo, wt) and elsewhere.is_dir()  # only the run's own pieces went


def test_a_worktree_whose_files_name_each_other_relatively_is_removed(memory_repo, worktrees):
    """git 2.48's worktree.useRelativePaths writes both links relative: `path/.git` from the
    worktree's folder, the record's `gitdir` from the record's own folder."""
    import os

    from mini_letta.reflection.run.worktree import unlinked_checkout

    wt = create_worktree(memory_repo, worktrees, "20261008160658-00000044")
    dot_git = wt.path / ".git"
    record = Path(dot_git.read_text().removeprefix("gitdir: ").strip())
    dot_git.write_text(f"gitdir: {os.path.relpath(record, wt.path)}\n")
    (record / "gitdir").write_text(os.path.relpath(dot_git, record) + "\n")
    assert unlinked_checkout(memory_repo, wt.path)
    assert _gone(memory_repo, wt) and not record.exists()
