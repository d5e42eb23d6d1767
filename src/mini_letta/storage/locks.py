"""Cross-process exclusive locks on a lock file (flock on Unix, via `filelock`).

Invariants: a lock dies with its holder (flock is released by the kernel when the process exits,
even on SIGKILL), so there is no stale-lock cleanup; the soft-lock fallback is disabled for that
reason. Locks are re-entrant per thread and process for the same path; other threads and other
processes are excluded.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from mini_letta.errors import LockTimeoutError, UnwritableError

_POLL = 0.005  # seconds between flock attempts; appends hold the lock for about one fsync


@contextmanager
def exclusive_lock(path: Path, *, timeout: float = 30.0, what: str = "this file") -> Iterator[None]:
    """Hold an exclusive lock on `path` for the body; `timeout` < 0 waits forever.

    The `FileLock` is a per-process singleton for its path (filelock keeps the registry), so
    nested use from one thread only bumps a counter instead of deadlocking on a second flock.
    Every instance is built with the same options, because filelock rejects a singleton lookup
    whose options differ; the timeout is therefore passed to `acquire`, not to the constructor.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UnwritableError(path.parent, exc.strerror or str(exc)) from exc
    lock = FileLock(path, is_singleton=True, fallback_to_soft=False)
    try:
        lock.acquire(timeout=timeout, poll_interval=_POLL)
    except Timeout as exc:  # before OSError: filelock's Timeout is a TimeoutError
        raise LockTimeoutError(what, path, timeout) from exc
    except OSError as exc:
        raise UnwritableError(path, exc.strerror or str(exc)) from exc
    try:
        yield
    finally:
        lock.release()
