"""Finalising a reflection worktree: classify it, merge it, in exact order.

The checks run in this order and the first match decides: the harness refused the agent
something (an unknown tool, a secret, a path outside memory) → `failed`, whatever it did after;
worktree dirty → `dirty_uncommitted`; the agent failed → `failed`; no commits → `no_changes`;
parent dirty → `parent_dirty`; then the memory gate (`gate.py`) names reasons → `rejected`
(the branch is the caller's to keep); then the review model, when one is set, rejects a hunk
→ `rejected` (`hunk_review.py`); then `merge=explicit` → the primary agent reviews and
merges (the harness verifies the branch is in main, whatever the agent said) or
`merge=auto` → `git merge`, `merge_conflict` after an abort.
Nothing here removes the worktree: the caller always does, in a `finally`.
"""

from __future__ import annotations

from collections.abc import Callable

from mini_letta.errors import SecretDetectedError
from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.memory.secrets import refuse_secret
from mini_letta.reflection.gate.check import GateInput, check_gate
from mini_letta.reflection.gate.hunk_review import ReviewOutcome, Verdict
from mini_letta.reflection.run.worktree import (
    Worktree,
    WorktreeLog,
    branch_subject,
    branch_subjects,
    is_merged,
    known_subjects,
    logged_diff,
)
from mini_letta.reflection.state.outcome import Status, status_message
from mini_letta.reflection.state.settings import MergeMode
from mini_letta.structs import Struct, replace


class MergeAttempt(Struct, frozen=True):
    merged: bool
    conflict: bool = False
    detail: str = ""
    dirty: bool = False  # the parent had uncommitted changes, so nothing was tried


class ReviewReport(Struct, frozen=True):
    """What the explicit-merge review did; `attempt` is None when it never tried to merge."""

    attempt: MergeAttempt | None
    note: str = ""
    error: str | None = None


Reviewer = Callable[[Worktree, int], ReviewReport]
SecondLook = Callable[[Worktree], ReviewOutcome]  # the review model's verdicts on the hunks
MERGE_LOCK_TIMEOUT = 60.0
_NOT_ON_MAIN = MergeAttempt(False, detail="memory is not on branch main")


class Finalised(Struct, frozen=True):
    status: Status
    message: str
    commit_count: int = 0
    merge_commit: str | None = None
    reasons: tuple[str, ...] = ()  # the gate's, for `rejected`
    review: tuple[Verdict, ...] = ()  # the review model's verdicts, when one read the hunks


def finalise_worktree(
    parent: GitRepo,
    worktree: Worktree,
    *,
    agent_error: str | None,
    merge: MergeMode,
    review: Reviewer | None = None,
    gate: GateInput | None = None,
    refusals: tuple[str, ...] = (),
    second_look: SecondLook | None = None,
    log: WorktreeLog | None = None,
) -> Finalised:
    """Classify and, where allowed, merge; `agent_error` is None when the agent succeeded.
    `log` is what the run's tools did to the worktree, when they are its only writers: a
    worktree no edit touched since its last full commit is not asked for its status, and
    commits the files confirm are not listed again (None: git is asked both)."""
    if refusals:
        detail = f"the reflection agent tried what it must not: {refusals[0]}"
        return _done("failed", detail=detail)
    dirty = worktree.repo.changed_paths() if log is None or log.edited else []
    if dirty:
        return _done("dirty_uncommitted", detail=_paths(dirty))
    if agent_error is not None:
        return _done("failed", detail=agent_error)
    subjects = None if log is None else known_subjects(worktree, log)
    confirmed = subjects is not None  # the log's commits are the worktree's: its diff too
    if subjects is None:
        subjects = branch_subjects(parent, worktree)
    commits = len(subjects)
    if commits == 0:
        return _done("no_changes")
    with lock_memory(parent.path, timeout=MERGE_LOCK_TIMEOUT):  # not mid-way through an edit
        parent_changes = parent.changed_paths()
        if parent_changes:
            return _done("parent_dirty", commits=commits, detail=_paths(parent_changes))
        if gate is not None:
            known = None if log is None or not confirmed else logged_diff(worktree, log)
            tip = worktree.tip()
            reasons = check_gate(parent, worktree.base, tip, worktree.path, gate, diffs=known)
            if reasons:
                return Finalised("rejected", "; ".join(reasons), commits, reasons=tuple(reasons))
        if merge == "auto" and second_look is None:
            # Nothing waits on a model before this merge: it keeps the lock, so the look at the
            # parent above is the one the merge relies on, taken once.
            if parent.current_branch() != "main":
                return _merged(parent, commits, _NOT_ON_MAIN)
            return _merged(parent, commits, _merge_locked(parent, worktree, subjects[0]))
    verdicts: tuple[Verdict, ...] = ()
    if second_look is not None:
        looked = second_look(worktree)
        verdicts = looked.verdicts
        if looked.reasons:
            return Finalised(
                "rejected", "; ".join(looked.reasons), commits, None, tuple(looked.reasons),
                verdicts,
            )  # fmt: skip
    if merge == "explicit":
        if review is None:
            raise RuntimeError("merge=explicit needs a reviewer")
        final = _verify_review(parent, worktree, commits, review(worktree, commits))
    else:
        final = _merged(parent, commits, merge_branch(parent, worktree, subjects[0]))
    return replace(final, review=verdicts)


def _merged(parent: GitRepo, commits: int, attempt: MergeAttempt) -> Finalised:
    if attempt.merged:
        return _done("merged", commits=commits, head=parent.head_sha())
    if attempt.dirty:
        return _done("parent_dirty", commits=commits, detail=attempt.detail)
    if attempt.conflict:
        return _done("merge_conflict", commits=commits, detail=attempt.detail)
    return _done("failed", commits=commits, detail=attempt.detail)


def merge_branch(parent: GitRepo, worktree: Worktree, tip: str | None = None) -> MergeAttempt:
    """`git merge` the run's commits into main (fast-forward or a merge commit).

    Runs under the memory repo's lock, the one the memory tool commits under, and re-checks
    that the parent is clean there. A conflict is aborted at once: the parent is left as it was.
    `tip` is the branch tip's subject when the caller has read it.
    """
    with lock_memory(parent.path, timeout=MERGE_LOCK_TIMEOUT):
        if parent.current_branch() != "main":
            return _NOT_ON_MAIN
        changes = parent.changed_paths()
        if changes:
            return MergeAttempt(False, detail=_paths(changes), dirty=True)
        return _merge_locked(parent, worktree, tip)


def _merge_locked(parent: GitRepo, worktree: Worktree, tip: str | None) -> MergeAttempt:
    message = f"merge(reflection): {branch_subject(parent, worktree, tip)}"
    try:
        refuse_secret(message, "the merge message")
    except SecretDetectedError as exc:
        return MergeAttempt(False, detail=str(exc))
    if parent.returncode("merge", "--no-edit", "-m", message, worktree.tip()) == 0:
        return MergeAttempt(True)
    conflicted = parent.run("diff", "--name-only", "--diff-filter=U").split()
    in_merge = parent.returncode("rev-parse", "-q", "--verify", "MERGE_HEAD") == 0
    if in_merge:
        parent.run("merge", "--abort")
    if conflicted or in_merge:
        return MergeAttempt(False, conflict=True, detail=f"in {', '.join(conflicted) or 'memory'}")
    return MergeAttempt(False, detail="git merge failed without a conflict")


def _verify_review(
    parent: GitRepo, worktree: Worktree, commits: int, report: ReviewReport
) -> Finalised:
    """Verification beats the report: only the branch being in main counts as merged."""
    if is_merged(parent, worktree):
        return _done("merged", commits=commits, head=parent.head_sha())
    changes = parent.changed_paths()
    if changes:
        return _done("parent_dirty", commits=commits, detail=_paths(changes))
    if report.attempt is not None and report.attempt.conflict:
        return _done("merge_conflict", commits=commits, detail=report.attempt.detail)
    if report.error is not None:
        return _done("failed", commits=commits, detail=f"the merge review failed: {report.error}")
    return _done("not_merged", commits=commits, detail=report.note)


def _done(
    status: Status, *, commits: int = 0, detail: str = "", head: str | None = None
) -> Finalised:
    return Finalised(status, status_message(status, commits=commits, detail=detail), commits, head)


def _paths(paths: list[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    more = len(paths) - limit
    return shown + (f" and {more} more" if more > 0 else "")
