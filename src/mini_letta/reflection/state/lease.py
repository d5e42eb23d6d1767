"""One reflection per agent at a time, across processes: `agents/<id>/reflection.lease`.

The lease is a JSON file {runId, pid, host, startedAt, expiresAt}, read and written only under
`storage.locks.exclusive_lock`, so taking it is atomic. The holder also keeps an flock on its own
`reflection.lease.<runId>.held` for as long as it lives: the kernel drops it the instant the
holder dies (even on SIGKILL), so on this host a holder is alive exactly while that flock is
held; a pid alone is not trusted, as it may have been reused by an unrelated process. For
another host (no shared flock) and for a hung holder, the expiry decides. A dead or expired
holder is reaped: its lease is replaced and its run id reported so the caller can mark that
run's record. A live holder means `LeaseHeldError`. A long run renews its lease; release
removes it only if it is still ours.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from mini_letta import log
from mini_letta.clock import Clock, format_timestamp
from mini_letta.errors import CorruptFileError, LeaseHeldError, LockTimeoutError, UnwritableError
from mini_letta.home import Home, lock_file_for
from mini_letta.storage.atomic import load_json, quarantine_file, save_json
from mini_letta.storage.fields import require_int, require_str
from mini_letta.storage.locks import HeldLock, exclusive_lock, hold_lock, lock_is_held
from mini_letta.structs import Struct, replace

SCHEMA_VERSION = 1
DEFAULT_TTL = timedelta(minutes=30)
_SAFE_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


class LeaseHolder(Struct, frozen=True):
    run_id: str
    pid: int
    host: str
    started_at: str
    expires_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "runId": self.run_id,
            "pid": self.pid,
            "host": self.host,
            "startedAt": self.started_at,
            "expiresAt": self.expires_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LeaseHolder:
        holder = cls(
            run_id=require_str(data, "runId", non_empty=True),
            pid=require_int(data, "pid"),
            host=require_str(data, "host"),
            started_at=require_str(data, "startedAt"),
            expires_at=require_str(data, "expiresAt"),
        )
        _parse_time(holder.expires_at)
        return holder


class LeaseBusyError(LeaseHeldError):
    """The lease is held by a live run; `holder` says which."""

    def __init__(self, holder: LeaseHolder, path: Path) -> None:
        self.holder = holder
        super().__init__(
            f"reflection run {holder.run_id} (pid {holder.pid} on {holder.host}) holds {path} "
            f"until {holder.expires_at}; try again when it finishes"
        )


class ReflectionLease:
    """A held lease. Use as a context manager, or call `release()` in a finally."""

    def __init__(
        self,
        home: Home,
        agent_id: str,
        holder: LeaseHolder,
        reaped: LeaseHolder | None,
        alive: HeldLock,
    ) -> None:
        self.home = home
        self.agent_id = agent_id
        self.holder = holder
        self.reaped = reaped  # the dead or expired holder this lease replaced, if any
        self._alive = alive  # the flock that says "this holder lives"
        self._held = True

    def renew(self, clock: Clock, ttl: timedelta = DEFAULT_TTL) -> None:
        with _lock(self.home, self.agent_id):
            current = _read(self.home, self.agent_id, clock)
            if current is None or current.run_id != self.holder.run_id:
                return  # reaped by someone who thought we were gone; nothing to renew
            expires = format_timestamp(clock.now() + ttl)
            self.holder = replace(self.holder, expires_at=expires)
            save_json(self.home.reflection_lease_file(self.agent_id), self.holder.to_json())

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        with _lock(self.home, self.agent_id):
            path = self.home.reflection_lease_file(self.agent_id)
            try:
                data = load_json(path)
            except CorruptFileError:
                data = None
            if data is not None and data.get("runId") == self.holder.run_id:
                path.unlink(missing_ok=True)
            self._alive.release()
            self.home.reflection_holder_lock(self.agent_id, self.holder.run_id).unlink(
                missing_ok=True
            )

    def __enter__(self) -> ReflectionLease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def this_host() -> str:
    """This machine's name, as gethostname() gives it: from uname where there is one
    (importing socket for it was ~4 ms of every process that reads a lease: status, each
    reflection)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def acquire_lease(
    home: Home,
    agent_id: str,
    run_id: str,
    clock: Clock,
    *,
    ttl: timedelta = DEFAULT_TTL,
) -> ReflectionLease:
    """Take the agent's reflection lease; raises LeaseBusyError while a live run holds it."""
    now = clock.now()
    holder = LeaseHolder(
        run_id=run_id,
        pid=os.getpid(),
        host=this_host(),
        started_at=format_timestamp(now),
        expires_at=format_timestamp(now + ttl),
    )
    with _lock(home, agent_id):
        current = _read(home, agent_id, clock)
        if current is not None and _is_alive(home, agent_id, current, now):
            raise LeaseBusyError(current, home.reflection_lease_file(agent_id))
        if current is not None:
            log.debug("reaping the reflection lease of run %s", current.run_id)
            if _SAFE_RUN_ID.fullmatch(current.run_id):
                home.reflection_holder_lock(agent_id, current.run_id).unlink(missing_ok=True)
        alive = _hold(home.reflection_holder_lock(agent_id, run_id))
        try:
            save_json(home.reflection_lease_file(agent_id), holder.to_json())
        except BaseException:
            alive.release()
            raise
    return ReflectionLease(home, agent_id, holder, current, alive)


def read_lease(home: Home, agent_id: str, clock: Clock) -> LeaseHolder | None:
    """The current holder as recorded (alive or not), for status displays."""
    with _lock(home, agent_id):
        return _read(home, agent_id, clock)


def is_lease_held(home: Home, agent_id: str, clock: Clock) -> bool:
    """True while a live, unexpired run holds the agent's lease."""
    return running_holder(home, agent_id, clock) is not None


def running_holder(home: Home, agent_id: str, clock: Clock) -> LeaseHolder | None:
    """The lease's holder if it is a live, unexpired run, else None."""
    with _lock(home, agent_id):
        holder = _read(home, agent_id, clock)
        alive = holder is not None and _is_alive(home, agent_id, holder, clock.now())
        return holder if alive else None


def _is_alive(home: Home, agent_id: str, holder: LeaseHolder, now: datetime) -> bool:
    """Not expired and, on this host, still holding the flock it took with the lease.

    Called under the lease lock, so no holder is between creating its flock file and writing
    the lease, or between removing the lease and its flock file."""
    if _parse_time(holder.expires_at) <= now:
        return False
    if holder.host != this_host():
        return True  # another machine's flocks are not visible here; the expiry decides
    if not _SAFE_RUN_ID.fullmatch(holder.run_id):
        return False  # no holder ever wrote such a run id: the file was made by hand
    path = home.reflection_holder_lock(agent_id, holder.run_id)
    if not path.exists():
        return False
    try:
        return lock_is_held(path)
    except UnwritableError:
        return True  # cannot tell: trust the expiry rather than steal a live lease


def _hold(path: Path) -> HeldLock:
    """Take the holder's flock for the life of the lease (a fresh file per run)."""
    try:
        return hold_lock(path, what=f"reflection run {path.name}")
    except LockTimeoutError as exc:  # only a holder of the same run id could have it
        raise LeaseHeldError(f"reflection run {path.name} is already running") from exc


def _read(home: Home, agent_id: str, clock: Clock) -> LeaseHolder | None:
    path = home.reflection_lease_file(agent_id)
    try:
        data = load_json(path)
        return None if data is None else LeaseHolder.from_json(data)
    except (CorruptFileError, ValueError) as exc:
        moved = quarantine_file(path, clock.now())
        log.warning("the reflection lease %s was unreadable (%s); kept it as %s", path, exc, moved)
        return None


def _lock(home: Home, agent_id: str) -> Any:
    path = lock_file_for(home.reflection_lease_file(agent_id))
    return exclusive_lock(path, timeout=10.0, what=f"the reflection lease of {agent_id}")


def _parse_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a timestamp") from exc
