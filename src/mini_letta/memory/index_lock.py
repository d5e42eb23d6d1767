"""A stale git `index.lock` in a memory checkout, cleared once the memory lock is held.

Every mini-letta writer of a memory checkout (the main one or a reflection worktree) commits while
holding `<checkout>.lock`, so once we hold it, an `index.lock` in that checkout's git dir was left
by a git that crashed, or belongs to a git a person (or another tool) is running. The rule: clear
it only if it is older than `STALE_AFTER` and, where `/proc` lets us see it, no process has it
open (git keeps the lock file open while it holds it); without `/proc` it must be older than
`STALE_AFTER_BLIND`. Anything else is left alone, and git's refusal names the file.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from mini_letta.home import git_index_lock_file

_log = logging.getLogger("mini_letta")

STALE_AFTER = 2.0  # seconds: longer than git holds the lock between closing and renaming it
STALE_AFTER_BLIND = 600.0  # seconds, when no process table can say who has the file open
_PROC = Path("/proc")


def clear_stale_index_lock(checkout: Path, *, now: float | None = None) -> Path | None:
    """Remove the checkout's `index.lock` if it is stale; returns the path removed, if any.

    Call only while holding the checkout's memory lock."""
    git_dir = _git_dir(checkout)
    if git_dir is None:
        return None
    lock = git_index_lock_file(git_dir)
    try:
        age = (time.time() if now is None else now) - lock.stat().st_mtime
    except OSError:  # no lock file: the usual case, one stat
        return None
    visible = _PROC.is_dir()
    if age < (STALE_AFTER if visible else STALE_AFTER_BLIND) or (visible and _is_open(lock)):
        return None
    try:
        lock.unlink()
    except FileNotFoundError:
        return None
    except OSError as exc:
        _log.warning("could not remove the stale %s (%s)", lock, exc.strerror or exc)
        return None
    _log.warning("removed %s, left by a git that is no longer running", lock)
    return lock


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
