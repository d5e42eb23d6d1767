"""Stale git lock files in a memory checkout, cleared once the memory lock is held.

Every mini-letta writer of a memory checkout (the main one or a reflection worktree) runs git
while holding `<checkout>.lock`, so once we hold it, a `*.lock` in that checkout's git dir
(`index.lock`, `HEAD.lock`, `packed-refs.lock`, a ref's `refs/…/<name>.lock`) was left by a git
that was killed, or belongs to a git a person (or another tool) is running. The rule: clear one
only if it is older than `STALE_AFTER` and, where `/proc` lets us see it, no process has it open
(git keeps a lock file open while it holds it); without `/proc` it must be older than
`STALE_AFTER_BLIND`. Anything else is left alone, and git's refusal names the file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from mini_letta import log
from mini_letta.home import git_lock_files

STALE_AFTER = 2.0  # seconds: longer than git holds the lock between closing and renaming it
STALE_AFTER_BLIND = 600.0  # seconds, when no process table can say who has the file open
_PROC = Path("/proc")


def clear_stale_git_locks(checkout: Path, *, now: float | None = None) -> tuple[Path, ...]:
    """Remove the checkout's stale git lock files; returns the paths removed.

    Call only while holding the checkout's memory lock."""
    git_dir = _git_dir(checkout)
    if git_dir is None:
        return ()
    locks = git_lock_files(git_dir)
    if not locks:  # the usual case: a listing of the git dir and of its refs
        return ()
    moment = time.time() if now is None else now
    return tuple(lock for lock in locks if _clear_if_stale(lock, moment))


def _clear_if_stale(lock: Path, now: float) -> bool:
    try:
        age = now - lock.stat().st_mtime
    except OSError:  # gone meanwhile
        return False
    visible = _PROC.is_dir()
    if age < (STALE_AFTER if visible else STALE_AFTER_BLIND) or (visible and _is_open(lock)):
        return False
    try:
        lock.unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        log.warning("could not remove the stale %s (%s)", lock, exc.strerror or exc)
        return False
    log.warning("removed %s, left by a git that is no longer running", lock)
    return True


def _git_dir(checkout: Path) -> Path | None:
    """`.git` itself, or where a worktree's `.git` file points (`gitdir: <path>`)."""
    dot_git = checkout / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else checkout / target


def _is_open(path: Path) -> bool:
    """True if any process we can see has `path` open (Linux `/proc/<pid>/fd`)."""
    wanted = os.path.realpath(path)
    for fd_dir in _PROC.glob("[0-9]*/fd"):
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # gone, or another user's: such a process cannot write our memory
            continue
        for fd in fds:
            try:
                if os.readlink(fd_dir / fd) == wanted:
                    return True
            except OSError:  # closed meanwhile
                continue
    return False
