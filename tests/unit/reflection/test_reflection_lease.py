"""The reflection lease: one run per agent across processes; dead or expired holders reaped."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from datetime import timedelta

import pytest

from mini_letta.clock import SystemClock
from mini_letta.reflection.state.lease import (
    LeaseBusyError,
    LeaseHolder,
    acquire_lease,
    read_lease,
)
from support.cli import SRC

AGENT = "agent-lease"

_HOLDER = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.reflection.state.lease import acquire_lease
home = Home(Path(sys.argv[2]))
lease = acquire_lease(home, sys.argv[3], "20261008160658-0000beef", SystemClock())
print("held", flush=True)
sys.stdin.read()
lease.release()
print("released", flush=True)
"""


@pytest.fixture
def holder_process(home):
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(SRC), str(home.root), AGENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "held"
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if not stream.closed:
            stream.close()


def test_a_holder_in_another_process_refuses_runs_until_killed_then_is_reaped(home, holder_process):
    """One holder process shows it all: a second run is refused (one line naming the holder),
    `is_lease_held` sees it; after SIGKILL it is no longer held and the next run reaps it."""
    from mini_letta.reflection.state.lease import is_lease_held

    with pytest.raises(LeaseBusyError) as err:
        acquire_lease(home, AGENT, "20261008160700-00000002", SystemClock())
    assert err.value.holder.pid == holder_process.pid
    assert err.value.holder.run_id == "20261008160658-0000beef"
    assert "\n" not in str(err.value)
    assert is_lease_held(home, AGENT, SystemClock())

    holder_process.send_signal(signal.SIGKILL)
    holder_process.wait()
    assert not is_lease_held(home, AGENT, SystemClock())
    lease = acquire_lease(home, AGENT, "20261008160700-00000002", SystemClock())
    assert lease.reaped is not None and lease.reaped.pid == holder_process.pid
    assert lease.holder.run_id == "20261008160700-00000002"
    lease.release()
    assert not home.reflection_lease_file(AGENT).exists()


def test_holder_that_releases_frees_the_lease(home, holder_process):
    holder_process.stdin.close()
    assert holder_process.stdout.readline().strip() == "released"
    holder_process.wait()
    with acquire_lease(home, AGENT, "20261008160700-00000002", SystemClock()) as lease:
        assert lease.reaped is None


def test_same_process_second_launch_is_busy(home, clock):
    with (
        acquire_lease(home, AGENT, "20261008160658-00000001", clock),
        pytest.raises(LeaseBusyError),
    ):
        acquire_lease(home, AGENT, "20261008160659-00000002", clock)
    with acquire_lease(home, AGENT, "20261008160659-00000002", clock):
        pass


def test_expired_lease_is_reaped_even_if_its_process_lives(home, clock):
    first = acquire_lease(home, AGENT, "20261008160658-00000001", clock, ttl=timedelta(minutes=5))
    clock.advance(301)
    second = acquire_lease(home, AGENT, "20261008160659-00000002", clock)
    assert second.reaped is not None and second.reaped.run_id == first.holder.run_id
    first.release()  # no longer ours: must not remove the new holder's lease
    assert (
        json.loads(home.reflection_lease_file(AGENT).read_text())["runId"] == second.holder.run_id
    )
    second.release()


def test_renew_extends_the_lease(home, clock):
    lease = acquire_lease(home, AGENT, "20261008160658-00000001", clock, ttl=timedelta(minutes=5))
    clock.advance(240)
    lease.renew(clock, ttl=timedelta(minutes=5))
    clock.advance(240)
    with pytest.raises(LeaseBusyError):
        acquire_lease(home, AGENT, "20261008160659-00000002", clock)
    lease.release()


def _write_lease(home, **overrides):
    holder = LeaseHolder(
        run_id="20261008160658-00000009",
        pid=1,
        host="some-other-machine",
        started_at="2026-10-08T16:00:00.000Z",
        expires_at="2026-10-08T17:00:00.000Z",
    ).to_json()
    holder.update(overrides)
    path = home.reflection_lease_file(AGENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(holder))


def test_lease_from_another_host_counts_until_it_expires(home, clock):
    _write_lease(home)
    with pytest.raises(LeaseBusyError):
        acquire_lease(home, AGENT, "20261008160700-00000002", clock)
    clock.advance(3600)
    with acquire_lease(home, AGENT, "20261008170700-00000002", clock) as lease:
        assert lease.reaped is not None and lease.reaped.host == "some-other-machine"


def test_dead_pid_on_this_host_is_reaped(home, clock):
    import socket

    dead = subprocess.Popen(["true"])  # any process that has ended: its pid is free
    dead.wait()
    _write_lease(home, host=socket.gethostname(), pid=dead.pid)
    with acquire_lease(home, AGENT, "20261008160700-00000002", clock) as lease:
        assert lease.reaped is not None and lease.reaped.pid == dead.pid


@pytest.mark.parametrize(
    "raw",
    [b"{torn", b"", b'{"schemaVersion": 1, "runId": 5}', b'{"runId": "x", "pid": 1, "host": "h"}'],
    ids=["torn", "empty", "bad-types", "missing-times"],
)
def test_unreadable_lease_is_kept_aside_and_replaced(home, clock, raw):
    path = home.reflection_lease_file(AGENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    with acquire_lease(home, AGENT, "20261008160700-00000002", clock):
        assert read_lease(home, AGENT, clock).run_id == "20261008160700-00000002"
    kept = list(path.parent.glob("reflection.lease.corrupt-*"))
    assert [p.read_bytes() for p in kept] == [raw]


def test_live_unrelated_pid_on_this_host_does_not_hold_the_lease(home, clock):
    """PID reuse: the recorded pid is alive (our parent), but it is not a mini-letta holder."""
    import os
    import socket

    _write_lease(
        home, host=socket.gethostname(), pid=os.getppid(), expires_at="2026-10-08T17:00:00.000Z"
    )
    with acquire_lease(home, AGENT, "20261008160700-00000002", clock) as lease:
        assert lease.reaped is not None and lease.reaped.pid == os.getppid()
