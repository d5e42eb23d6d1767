"""Waiting for another process to do something: poll, with a bound so a stuck wait fails."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

POLL = 0.02  # seconds between looks


def wait_until(
    predicate: Callable[[], object], what: str | Callable[[], str], timeout: float = 30.0
) -> None:
    """Return once `predicate()` is true; fail naming `what` if `timeout` seconds pass first
    (a callable `what` is asked only then, so it can describe the state at the failure).

    The bound only turns a hang into a clear failure; no test asserts how fast anything is.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        time.sleep(POLL)


def process_alive(pid: int) -> bool:
    """Whether process `pid` still runs: a zombie (exited, not yet reaped) counts as gone,
    though it still answers signal 0."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
