"""Cross-process exclusive locks on a lock file: `flock` on POSIX (filelock on Windows).

The one lock implementation: `exclusive_lock` for a block of code, `hold_lock` for a lock kept
until released (a reflection lease's "this holder lives" lock), `lock_is_held` to probe one.

Invariants: a lock dies with its holder (the kernel drops a flock when the process exits, even
on SIGKILL), so there is no stale-lock cleanup. Locks are re-entrant per thread for the same
path; other threads and other processes are excluded (each thread locks its own open file
description, and flock excludes across descriptions). `flock` itself is used rather than the
filelock package because importing filelock costs about a quarter of a mock turn.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mini_letta.errors import LockTimeoutError, UnwritableError

_POLL = 0.005  # seconds between flock attempts; appends hold the lock for about one fsync


class _Held:
    """One thread's hold on one lock file: how deep it is nested, and how to let it go."""

    __slots__ = ("depth", "release")

    def __init__(self, release: Callable[[], None]) -> None:
        self.depth = 1
        self.release = release


_local = threading.local()  # .held: dict[str, _Held], this thread's locks by absolute path


@contextmanager
def exclusive_lock(path: Path, *, timeout: float = 30.0, what: str = "this file") -> Iterator[None]:
    """Hold an exclusive lock on `path` for the body; `timeout` < 0 waits forever, 0 not at all.

    Nested use from one thread only counts depth instead of deadlocking on a second lock.
    Raises LockTimeoutError when another holder keeps it past `timeout`, UnwritableError when
    the lock file cannot be created.
    """
    held: dict[str, _Held] = _local.__dict__.setdefault("held", {})
    key = os.path.abspath(path)
    hold = held.get(key)
    if hold is not None:
        hold.depth += 1
    else:
        hold = held[key] = _Held(_acquire(path, timeout, what, make_parent=True))
    try:
        yield
    finally:
        hold.depth -= 1
        if hold.depth == 0:
            del held[key]
            hold.release()


class HeldLock:
    """A lock held until `release()` or until the process ends, whichever comes first."""

    __slots__ = ("_release",)

    def __init__(self, release: Callable[[], None]) -> None:
        self._release: Callable[[], None] | None = release

    def release(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()


def hold_lock(path: Path, *, what: str = "this file") -> HeldLock:
    """Take `path`'s lock now, not waiting: LockTimeoutError when someone holds it."""
    return HeldLock(_acquire(path, 0, what))


def lock_is_held(path: Path) -> bool:
    """Whether someone (another process, or another hold in this one) holds `path`'s lock:
    a probe takes it and lets it go at once."""
    try:
        release = _acquire(path, 0, str(path))
    except LockTimeoutError:
        return True
    release()
    return False


def _acquire(
    path: Path, timeout: float, what: str, *, make_parent: bool = False
) -> Callable[[], None]:
    """`make_parent`: the lock file's folder is made when missing (only then: a folder made
    first for every lock cost a mkdir call that nearly always found it there)."""
    if sys.platform == "win32":
        if make_parent:
            _make_parent(path)
        return _acquire_with_filelock(path, timeout, what)
    import fcntl

    try:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except (FileNotFoundError, NotADirectoryError):
            if not make_parent:
                raise
            _make_parent(path)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise UnwritableError(path, exc.strerror or str(exc)) from exc
    deadline = None if timeout < 0 else time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if deadline is not None and time.monotonic() >= deadline:
                os.close(fd)
                raise LockTimeoutError(what, path, timeout) from None
            time.sleep(_POLL)
            continue
        except OSError as exc:
            os.close(fd)
            raise UnwritableError(path, exc.strerror or str(exc)) from exc
        return lambda: _release(fd)


def _make_parent(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UnwritableError(path.parent, exc.strerror or str(exc)) from exc


def _release(fd: int) -> None:
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire_with_filelock(path: Path, timeout: float, what: str) -> Callable[[], None]:
    from filelock import FileLock, Timeout

    lock = FileLock(path)
    try:
        lock.acquire(timeout=timeout, poll_interval=_POLL)
    except Timeout as exc:  # before OSError: filelock's Timeout is a TimeoutError
        raise LockTimeoutError(what, path, timeout) from exc
    except OSError as exc:
        raise UnwritableError(path, exc.strerror or str(exc)) from exc
    return lambda: lock.release()
