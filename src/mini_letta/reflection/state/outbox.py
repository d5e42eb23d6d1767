"""Outcomes waiting to be shown: `agents/<id>/reflection-outbox/<posted>-<n>.json`, one per run.

A reflection that no terminal watched (a detached background run, or a queued launch run by
whichever process held the lease) posts its outcome here; the next command in that agent takes
them, oldest first, and shows each once. Posting is an atomic write of a new file; taking reads
and removes under a lock, so two commands starting at once never show the same outcome twice.
Checking an empty outbox costs one directory listing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta import log
from mini_letta.clock import Clock
from mini_letta.errors import CorruptFileError
from mini_letta.home import Home, is_json_file, lock_file_for
from mini_letta.storage.atomic import load_json, quarantine_file, save_json
from mini_letta.storage.locks import exclusive_lock

if TYPE_CHECKING:
    from mini_letta.reflection.state.outcome import ReflectionOutcome


SCHEMA_VERSION = 1


def post_outcome(home: Home, agent_id: str, outcome: ReflectionOutcome, clock: Clock) -> Path:
    """Leave `outcome` for the next command; a sequence number keeps the posting order."""
    folder = home.reflection_outbox_dir(agent_id)
    with _lock(folder):
        entries = _entries(folder)
        last = _sequence(entries[-1]) if entries else 0
        stamp = clock.now().strftime("%Y%m%d%H%M%S")
        path = home.reflection_outbox_entry(agent_id, last + 1, stamp)
        save_json(path, {"schemaVersion": SCHEMA_VERSION, "outcome": outcome.to_json()})
    return path


def post_automatic_outcome(
    home: Home, agent_id: str, outcome: ReflectionOutcome, *, clock: Clock
) -> None:
    """Post an automatic run's outcome unless it repeats a failure streak already reported."""
    if outcome.worth_reporting:
        post_outcome(home, agent_id, outcome, clock)


def take_outcomes(home: Home, agent_id: str, clock: Clock) -> list[ReflectionOutcome]:
    """Every waiting outcome, oldest first, removed from the outbox (an unreadable one is moved
    aside with a warning instead)."""
    folder = home.reflection_outbox_dir(agent_id)
    if not _entries(folder):
        return []
    taken: list[ReflectionOutcome] = []
    with _lock(folder):
        for path in _entries(folder):
            try:
                data = load_json(path)
                if data is not None:
                    taken.append(_decode(data))
            except (CorruptFileError, ValueError) as exc:
                moved = quarantine_file(path, clock.now())
                log.warning("skipped an unreadable reflection outcome %s (%s)", moved, exc)
                continue
            path.unlink(missing_ok=True)
    return taken


def _decode(data: dict[str, Any]) -> ReflectionOutcome:
    from mini_letta.reflection.state.outcome import ReflectionOutcome

    if data.get("schemaVersion") != SCHEMA_VERSION:
        raise ValueError(f"schemaVersion {data.get('schemaVersion')!r} is not {SCHEMA_VERSION}")
    outcome = data.get("outcome")
    if not isinstance(outcome, dict):
        raise ValueError("outcome must be an object")
    return ReflectionOutcome.from_json(outcome)


def _lock(folder: Path) -> Any:
    return exclusive_lock(lock_file_for(folder), what="the reflection outbox")


def _sequence(path: Path) -> int:
    head = path.name.split("-", 1)[0]
    return int(head) if head.isdigit() else 0


def _entries(folder: Path) -> list[Path]:
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return sorted(path for path in map(folder.joinpath, names) if is_json_file(path))
