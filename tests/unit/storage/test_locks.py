"""Cross-process locks: exclusion between processes and threads, release on SIGKILL, re-entry."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import mini_letta
from mini_letta.errors import LockTimeoutError
from mini_letta.storage.locks import exclusive_lock, hold_lock, lock_is_held

SRC = Path(mini_letta.__file__).resolve().parents[1]

HOLDER = """
import sys
from pathlib import Path
from mini_letta.storage.locks import exclusive_lock, hold_lock, lock_is_held
with exclusive_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.read()  # hold until killed
"""


@contextmanager
def lock_held_by_child(path: Path) -> Iterator[subprocess.Popen[str]]:
    """A child process that holds the lock until it is killed."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "locked"
            yield child
        finally:
            child.kill()
            child.wait()


def test_second_process_times_out_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "agent.lock"
    with (
        lock_held_by_child(path),
        pytest.raises(LockTimeoutError) as caught,
        exclusive_lock(path, timeout=0.05, what="agent 'ada'"),
    ):
        pytest.fail("took a lock held by another process")

    assert caught.value.path == path
    assert "agent 'ada' is locked" in str(caught.value)


def test_lock_is_free_at_once_after_the_holder_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "agent.lock"
    with lock_held_by_child(path) as child:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        with exclusive_lock(path, timeout=0):  # free now: no waiting, no stale-lock cleanup
            pass


def _another_thread_can_take(path: Path) -> bool:
    taken: list[bool] = []

    def attempt() -> None:
        try:
            with exclusive_lock(path, timeout=0):
                taken.append(True)
        except LockTimeoutError:
            taken.append(False)

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join(timeout=10)
    return taken == [True]


def test_nested_use_in_one_thread_does_not_deadlock(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    with exclusive_lock(path):
        with exclusive_lock(path, timeout=0.1), exclusive_lock(Path(str(path))):
            assert not _another_thread_can_take(path)  # re-entered, and still exclusive
        assert not _another_thread_can_take(path)  # the inner exits kept the outer hold
    assert _another_thread_can_take(path)  # and the last exit released it


def test_another_thread_is_excluded_until_release(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    outcome: list[str] = []

    def contender(timeout: float) -> None:
        try:
            with exclusive_lock(path, timeout=timeout):
                outcome.append("acquired")
        except LockTimeoutError:
            outcome.append("timed out")

    with exclusive_lock(path):
        thread = threading.Thread(target=contender, args=(0.1,))
        thread.start()
        thread.join()
    thread = threading.Thread(target=contender, args=(1.0,))
    thread.start()
    thread.join()

    assert outcome == ["timed out", "acquired"]


def test_lock_creates_its_parent_folder(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "x.lock"
    with exclusive_lock(path):
        assert path.parent.is_dir()


def test_a_held_lock_lasts_until_released_and_a_probe_sees_it(tmp_path: Path) -> None:
    path = tmp_path / "run.held"
    held = hold_lock(path, what="run 1")
    assert lock_is_held(path)  # a probe from this process sees the hold, as another would
    with pytest.raises(LockTimeoutError, match="run 1"):
        hold_lock(path, what="run 1")
    held.release()
    held.release()  # a second release is nothing
    assert not lock_is_held(path)


def test_a_probe_sees_another_processes_lock_until_it_dies(tmp_path: Path) -> None:
    path = tmp_path / "run.held"
    with lock_held_by_child(path) as child:
        assert lock_is_held(path)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        assert not lock_is_held(path)
