"""Waiting for another process to do something: poll, with a bound so a stuck wait fails."""

from __future__ import annotations

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
