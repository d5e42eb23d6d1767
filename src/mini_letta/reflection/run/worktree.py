"""The reflection worktree: `memory-worktrees/reflection-<run-id>` on branch `reflection/<run-id>`.

A run edits and commits in its own git worktree of the memory repository, so the parent
checkout stays untouched until finalisation merges the branch. `remove_worktree` always takes
both the folder and the branch away, whatever state they are in; `clean_stale_worktrees` removes
what a crashed run left (call it only while holding the agent's lease, when no run is live).
`check_memory_repo` refuses a parent that is not on `main`, and re-attaches a detached HEAD only
when that is certainly safe (HEAD is main's tip and nothing is changed).
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from mini_letta import log
from mini_letta.errors import GitError
from mini_letta.home import is_worktree_folder, worktree_folder
from mini_letta.memory.repo import GitRepo
from mini_letta.structs import Struct, field

BRANCH_PREFIX = "reflection/"
MAIN = "main"


class Worktree(Struct, frozen=True):
    run_id: str
    path: Path
    branch: str
    base: str  # the parent's HEAD when the worktree was made

    @property
    def repo(self) -> GitRepo:
        return GitRepo(self.path)


class BranchCommit(Struct, frozen=True):
    parent: str | None  # the worktree's HEAD just before the commit
    sha: str
    subject: str


class WorktreeLog(Struct):
    """What the run's own tools did to its worktree: whether an edit may be left uncommitted
    (`edited`: an edit ran after the last commit that left the tree clean), and the commits
    they made, oldest first. Only the run's tools write there, so finalisation takes this
    instead of asking git again, once the worktree's files confirm the branch tip."""

    edited: bool = False
    commits: list[BranchCommit] = field(default_factory=list)


def check_memory_repo(parent: GitRepo) -> str | None:
    """None when the parent is a repository on `main` with a commit; else what is wrong."""
    where = parent.path
    if not parent.exists():
        return f"There is no memory repository at {where} (`mini-letta memory path` shows it)"
    if not parent.has_head():
        return f"The memory repository {where} has no commit yet"
    branch = parent.current_branch()
    if branch == MAIN:
        return None
    if not _branch_exists(parent, MAIN):
        on = f"branch {branch}" if branch else "a detached HEAD"
        return (
            f"The memory repository {where} has no branch {MAIN} (it is on {on}); "
            f"rename it with `git -C {where} branch -m {MAIN}`"
        )
    if branch is not None:
        return (
            f"The memory repository {where} is on branch {branch}, not {MAIN}; "
            f"switch back with `git -C {where} switch {MAIN}`"
        )
    head = parent.head_sha()
    if head == parent.rev_parse(MAIN) and not parent.is_dirty():
        parent.run("switch", "-q", MAIN)  # same commit, clean tree: nothing can be lost
        log.warning("re-attached the detached HEAD of %s to %s", where, MAIN)
        return None
    return (
        f"The memory repository {where} has a detached HEAD at {head[:12]}, not {MAIN}; keep any "
        f"commits you need, then `git -C {where} switch {MAIN}`"
    )


def create_worktree(parent: GitRepo, worktrees_dir: Path, run_id: str) -> Worktree:
    base = parent.head_sha()
    worktree = Worktree(
        run_id, worktree_folder(worktrees_dir, run_id), BRANCH_PREFIX + run_id, base
    )
    worktrees_dir.mkdir(parents=True, exist_ok=True)
    parent.run("worktree", "add", "-q", "-b", worktree.branch, str(worktree.path), base)
    return worktree


def remove_worktree(parent: GitRepo, worktree: Worktree) -> None:
    """Remove the folder and the branch; missing pieces are fine, leftovers are logged."""
    removed = False
    if worktree.path.exists():
        result = parent.returncode("worktree", "remove", "--force", "--force", str(worktree.path))
        removed = result == 0
        if not removed and worktree.path.exists():
            shutil.rmtree(worktree.path, ignore_errors=True)
    if not removed:  # git still lists a folder it did not remove itself
        parent.returncode("worktree", "prune")
    deleted = parent.returncode("branch", "-D", worktree.branch) == 0
    if worktree.path.exists() or (not deleted and _branch_exists(parent, worktree.branch)):
        log.warning("could not fully remove reflection worktree %s", worktree.path)


def clean_stale_worktrees(parent: GitRepo, worktrees_dir: Path) -> list[str]:
    """Remove every reflection worktree, folder and branch left by earlier runs."""
    removed: list[str] = []
    if worktrees_dir.is_dir():
        for entry in sorted(worktrees_dir.iterdir()):
            if is_worktree_folder(entry):
                parent.returncode("worktree", "remove", "--force", "--force", str(entry))
                if entry.exists():
                    shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry.name)
    if parent.may_have_worktrees():  # else git has nothing to prune
        with contextlib.suppress(GitError):
            parent.run("worktree", "prune")
    branches = _reflection_branches(parent) if parent.may_have_branches(BRANCH_PREFIX) else []
    for branch in branches:
        parent.returncode("branch", "-D", branch)
        removed.append(branch)
    if removed:
        log.warning("cleaned up after an interrupted reflection: removed %s", ", ".join(removed))
    return removed


def branch_subjects(parent: GitRepo, worktree: Worktree) -> list[str]:
    """The subjects of the branch's commits since its base, newest first: how many there
    are and the tip's, with one git process."""
    out = parent.run("log", "-z", "--format=%s", f"{worktree.base}..{worktree.branch}")
    return out.removesuffix("\0").split("\0") if out else []


def known_subjects(worktree: Worktree, log: WorktreeLog) -> list[str] | None:
    """`branch_subjects` from the run's own record of its commits, with no git process, when
    the worktree's files confirm it: each recorded commit was made on the one before it (the
    first on the base) and HEAD is still the run's branch at the last. None when unsure."""
    expected = worktree.base
    for commit in log.commits:
        if commit.parent != expected:
            return None
        expected = commit.sha
    repo = worktree.repo
    if repo.current_branch() != worktree.branch or repo.head_sha_or_none() != expected:
        return None
    return [commit.subject for commit in reversed(log.commits)]


def branch_subject(parent: GitRepo, worktree: Worktree, tip: str | None = None) -> str:
    """The tip commit's subject (`tip`, when the caller read it) without a conventional
    prefix, for the merge message."""
    if tip is None:
        tip = parent.run("log", "-1", "--format=%s", worktree.branch)
    subject = tip.strip()
    head, sep, rest = subject.partition(":")
    if sep and rest.strip() and " " not in head.strip():
        subject = rest.strip()
    return subject or "reflection memory updates"


def branch_diff(parent: GitRepo, worktree: Worktree, max_chars: int = 20_000) -> str:
    diff = parent.run("diff", f"{worktree.base}...{worktree.branch}")
    if len(diff) > max_chars:
        return diff[:max_chars] + f"\n… [diff truncated, {len(diff) - max_chars} more chars]\n"
    return diff


def is_merged(parent: GitRepo, worktree: Worktree) -> bool:
    """The branch tip is in main's history and the parent is on main."""
    if parent.current_branch() != MAIN or not _branch_exists(parent, worktree.branch):
        return False
    return parent.returncode("merge-base", "--is-ancestor", worktree.branch, MAIN) == 0


def _branch_exists(parent: GitRepo, branch: str) -> bool:
    return parent.returncode("rev-parse", "--verify", "-q", f"refs/heads/{branch}") == 0


def _reflection_branches(parent: GitRepo) -> list[str]:
    out = parent.run("for-each-ref", "--format=%(refname:short)", f"refs/heads/{BRANCH_PREFIX}")
    return [line.strip() for line in out.splitlines() if line.strip()]
