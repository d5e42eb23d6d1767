"""The reflection worktree: `memory-worktrees/reflection-<run-id>`, a detached checkout of main.

A run edits and commits in its own git worktree of the memory repository, so the parent
checkout stays untouched until finalisation merges the run's commits (by their tip's id: the
worktree's HEAD, so there is no branch to make or delete). `remove_worktree` always takes the
folder and git's record of it away, whatever state they are in; `clean_stale_worktrees` removes
what a crashed run left, and the `reflection/<run-id>` branches older versions made (call it
only while holding the agent's lease, when no run is live).
`check_memory_repo` refuses a parent that is not on `main`, and re-attaches a detached HEAD only
when that is certainly safe (HEAD is main's tip and nothing is changed).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from mini_letta import log
from mini_letta.errors import GitError
from mini_letta.home import is_worktree_folder, worktree_folder
from mini_letta.memory.gitfiles import config_mentions, git_dirs
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.gate.filediff import FileState, diff_files
from mini_letta.reflection.gate.hunks import FileDiff
from mini_letta.structs import Struct, field

BRANCH_PREFIX = "reflection/"
MAIN = "main"


class Worktree(Struct, frozen=True):
    run_id: str
    path: Path
    branch: str | None  # None: the run's own detached worktree, its commits at its HEAD
    base: str  # the parent's HEAD when the worktree was made

    @property
    def repo(self) -> GitRepo:
        return GitRepo(self.path)

    def tip(self) -> str:
        """What the parent merges: the branch, else the worktree's HEAD commit (read from its
        files, as it is now: a commit made after this call is not in it)."""
        return self.branch if self.branch is not None else self.repo.head_sha()


class BranchCommit(Struct, frozen=True):
    parent: str | None  # the worktree's HEAD just before the commit
    sha: str
    subject: str
    paths: tuple[str, ...] = ()  # what it changed, as git named them


class WorktreeLog(Struct):
    """What the run's own tools did to its worktree: whether an edit may be left uncommitted
    (`edited`: an edit ran after the last commit that left the tree clean), the commits they
    made, oldest first, and each file an edit touched as it was before the first such edit
    (`before`: the base's checkout). Only the run's tools write there, so finalisation takes
    this instead of asking git again, once the worktree's files confirm the tip."""

    edited: bool = False
    commits: list[BranchCommit] = field(default_factory=list)
    before: dict[str, FileState] = field(default_factory=dict)
    committed: dict[str, FileState] = field(default_factory=dict)  # the same at the last commit
    unsure: bool = False  # an edited path was not a plain file or missing: git must say

    def note_before(self, root: Path, rel: str) -> None:
        """Keep `rel` (a checked memory path) as it is now, unless an edit touched it already."""
        if rel in self.before or self.unsure:
            return
        plain, state = _file_state(root / rel)
        if plain:
            self.before[rel] = self.committed[rel] = state
        else:
            self.unsure = True

    def note_commit(self, root: Path, commit: BranchCommit) -> None:
        """A commit of everything the tools changed: the touched files are as it has them."""
        self.commits.append(commit)
        for rel in self.committed:
            plain, state = _file_state(root / rel)
            if plain:
                self.committed[rel] = state
            else:
                self.unsure = True


def _file_state(path: Path) -> tuple[bool, FileState]:
    """(whether `path` is a plain file or missing, and then its state as git sees it)."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return False, None
        return True, (path.read_bytes(), bool(info.st_mode & stat.S_IXUSR))
    except (FileNotFoundError, NotADirectoryError):
        return True, None
    except OSError:
        return False, None


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
    """A detached checkout of the parent's HEAD: the run's commits need no branch."""
    base = parent.head_sha()
    worktree = Worktree(run_id, worktree_folder(worktrees_dir, run_id), None, base)
    worktrees_dir.mkdir(parents=True, exist_ok=True)
    parent.run("worktree", "add", "-q", "--detach", str(worktree.path), base)
    return worktree


def remove_worktree(parent: GitRepo, worktree: Worktree) -> None:
    """Remove the folder and git's record of it; missing pieces are fine, leftovers are logged."""
    _remove_checkout(parent, worktree.path)
    if worktree.path.exists():
        log.warning("could not fully remove reflection worktree %s", worktree.path)


def _remove_checkout(parent: GitRepo, path: Path, *, prune: bool = True) -> None:
    """What `git worktree remove --force --force` does, in this process when git's documented
    layout holds (`unlinked_checkout`); else git is asked, then the folder deleted and (with
    `prune`) git's stale records pruned."""
    if unlinked_checkout(parent, path):
        return
    if path.exists():
        if parent.returncode("worktree", "remove", "--force", "--force", str(path)) == 0:
            return
        shutil.rmtree(path, ignore_errors=True)
    if prune and parent.may_have_worktrees():  # git still lists a folder it did not remove
        with contextlib.suppress(GitError):
            parent.run("worktree", "prune")


def unlinked_checkout(parent: GitRepo, path: Path) -> bool:
    """Delete the linked worktree at `path` and its folder in the parent's `worktrees/`, as
    `git worktree remove --force --force` does (the work tree first, then git's record of it:
    a crash between leaves what `git worktree prune` clears). Only when the files say exactly
    that: `path/.git` names a folder directly in the parent's `worktrees/`, whose `gitdir`
    names `path/.git` back. False, with nothing touched, when they do not (git must do it)."""
    dirs = git_dirs(parent.path)
    try:
        text = (path / ".git").read_text(encoding="utf-8")
        if dirs is None or dirs[0] != dirs[1] or not text.startswith("gitdir: "):
            return False
        named = path / text.removeprefix("gitdir: ").strip()  # relative: to the worktree
        if path.is_symlink() or named.is_symlink():
            return False
        record = Path(os.path.realpath(named))  # it outlives `path`, which goes first
        folder = dirs[1] / "worktrees"
        back = (record / "gitdir").read_text(encoding="utf-8").strip()  # relative: to record
        same = record.parent == Path(os.path.realpath(folder)) and (
            os.path.realpath(record / back) == os.path.realpath(path / ".git")
        )
    except (OSError, UnicodeDecodeError):
        return False
    if not same:
        return False
    try:
        shutil.rmtree(path)
        shutil.rmtree(record)
    except OSError:
        return False  # the caller asks git, and prunes what is left
    with contextlib.suppress(OSError):
        folder.rmdir()  # as git's prune does, once the last record is gone
    return True


def clean_stale_worktrees(parent: GitRepo, worktrees_dir: Path) -> list[str]:
    """Remove every reflection worktree left by earlier runs, with the branches older
    versions made for them."""
    removed: list[str] = []
    if worktrees_dir.is_dir():
        for entry in sorted(worktrees_dir.iterdir()):
            if is_worktree_folder(entry):
                _remove_checkout(parent, entry, prune=False)  # pruned once, below
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
    """The subjects of the run's commits since its base, newest first: how many there
    are and the tip's, with one git process."""
    out = parent.run("log", "-z", "--format=%s", f"{worktree.base}..{worktree.tip()}")
    return out.removesuffix("\0").split("\0") if out else []


def known_subjects(worktree: Worktree, log: WorktreeLog) -> list[str] | None:
    """`branch_subjects` from the run's own record of its commits, with no git process, when
    the worktree's files confirm it: each recorded commit was made on the one before it (the
    first on the base) and HEAD is still where the run left it (detached, or on its branch)
    at the last. None when unsure."""
    expected = worktree.base
    for commit in log.commits:
        if commit.parent != expected:
            return None
        expected = commit.sha
    repo = worktree.repo
    if repo.current_branch() != worktree.branch or repo.head_sha_or_none() != expected:
        return None
    return [commit.subject for commit in reversed(log.commits)]


def tracked_changes(root: Path, log: WorktreeLog) -> list[str] | None:
    """The paths the run's edits changed since its last commit (sorted as git names them),
    when git tracks every one (each was in the base and in every commit since) and nothing
    can convert a file: `git commit -- paths` alone then commits exactly them, without a
    `git add` first. None, or [], when git must look (`GitRepo.commit_all`)."""
    if log.unsure:
        return None
    changed: list[str] = []
    for rel, then in log.committed.items():
        plain, now = _file_state(root / rel)
        if not plain:
            return None
        if now != then:
            if then is None or log.before.get(rel) is None:
                return None  # a file git may not track
            changed.append(rel)
    dirs = git_dirs(root)
    if not changed or dirs is None or _may_convert(root, *dirs):
        return None
    return sorted(changed)


def logged_diff(worktree: Worktree, log: WorktreeLog) -> list[FileDiff] | None:
    """The gate's diff of the run's commits from the files (`gate/filediff.py`), for a
    worktree whose commits `known_subjects` confirmed and that is clean: every path the
    commits changed was kept by `note_before`, and neither attributes (which can convert a
    file on checkout) nor the repository's config (a diff algorithm) can make git's bytes or
    hunks differ. None when unsure: git is asked."""
    changed = {path for commit in log.commits for path in commit.paths}
    if log.unsure or log.edited or not changed.issubset(log.before):
        return None
    dirs = git_dirs(worktree.path)
    if dirs is None or _may_convert(worktree.path, *dirs):
        return None
    sides: dict[str, tuple[FileState, FileState]] = {}
    for path in changed:
        plain, after = _file_state(worktree.path / path)
        if not plain:
            return None
        sides[path] = (log.before[path], after)
    return diff_files(sides)


# Config that can change a diff's bytes or hunks (a diff algorithm, big files as binary, line
# endings, an attributes file, an include that could say any of these): git answers then.
_DIFF_WORDS = (b"diff", b"bigfile", b"eol", b"crlf", b"attributes", b"include")


def _may_convert(tree: Path, git_dir: Path, common: Path) -> bool:
    if (common / "info" / "attributes").exists():
        return True
    if config_mentions(git_dir, common, _DIFF_WORDS) != frozenset():
        return True  # one of the words, or a config file that cannot be read
    for _, dirs, names in os.walk(tree):
        if ".gitattributes" in names:
            return True
        dirs[:] = [d for d in dirs if d != ".git"]
    return False


def branch_subject(parent: GitRepo, worktree: Worktree, tip: str | None = None) -> str:
    """The tip commit's subject (`tip`, when the caller read it) without a conventional
    prefix, for the merge message."""
    if tip is None:
        tip = parent.run("log", "-1", "--format=%s", worktree.tip())
    subject = tip.strip()
    head, sep, rest = subject.partition(":")
    if sep and rest.strip() and " " not in head.strip():
        subject = rest.strip()
    return subject or "reflection memory updates"


def branch_diff(parent: GitRepo, worktree: Worktree, max_chars: int = 20_000) -> str:
    diff = parent.run("diff", f"{worktree.base}...{worktree.tip()}")
    if len(diff) > max_chars:
        return diff[:max_chars] + f"\n… [diff truncated, {len(diff) - max_chars} more chars]\n"
    return diff


def is_merged(parent: GitRepo, worktree: Worktree) -> bool:
    """The run's tip is in main's history and the parent is on main."""
    if parent.current_branch() != MAIN:
        return False
    if worktree.branch is None:
        tip = worktree.repo.head_sha_or_none()
    elif _branch_exists(parent, worktree.branch):
        tip = worktree.branch
    else:
        tip = None
    if tip is None:
        return False
    return parent.returncode("merge-base", "--is-ancestor", tip, MAIN) == 0


def _branch_exists(parent: GitRepo, branch: str) -> bool:
    return parent.returncode("rev-parse", "--verify", "-q", f"refs/heads/{branch}") == 0


def _reflection_branches(parent: GitRepo) -> list[str]:
    out = parent.run("for-each-ref", "--format=%(refname:short)", f"refs/heads/{BRANCH_PREFIX}")
    return [line.strip() for line in out.splitlines() if line.strip()]
