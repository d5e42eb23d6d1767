"""`agents/<id>/memory-sync.json`: what the last memory sync did, and what waits for review.

The file is derived bookkeeping, never the source of truth (the repository is): a corrupt one is
set aside and sync starts afresh. It records the last attempt and success, the last error and
whether it was already reported (a failing background sync is reported once, then retried at
the next sync), and the files a sync left with a `## Needs review` block.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mini_letta import log
from mini_letta.clock import Clock
from mini_letta.errors import CorruptFileError, FrontmatterError
from mini_letta.home import Home
from mini_letta.memory.files import read_memory_bytes
from mini_letta.storage.atomic import load_json, quarantine_file, save_json
from mini_letta.storage.fields import optional_int, optional_str, optional_str_list
from mini_letta.structs import Struct, field, replace

SCHEMA_VERSION = 1


class SyncState(Struct, frozen=True):
    last_attempt_at: str | None = None
    last_success_at: str | None = None
    last_error: str | None = None
    error_reported: bool = False
    failures: int = 0
    needs_review: tuple[str, ...] = field(default_factory=tuple)
    # Set while the working tree moves from one commit to another; a sync killed then left
    # some files at `moving_to` and HEAD at `moving_from`, which the next sync completes.
    moving_from: str | None = None
    moving_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "lastAttemptAt": self.last_attempt_at,
            "lastSuccessAt": self.last_success_at,
            "lastError": self.last_error,
            "errorReported": self.error_reported,
            "consecutiveFailures": self.failures,
            "needsReview": list(self.needs_review),
            "movingFrom": self.moving_from,
            "movingTo": self.moving_to,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SyncState:
        reported = data.get("errorReported", False)
        if not isinstance(reported, bool):
            raise ValueError("errorReported must be true or false")
        return cls(
            last_attempt_at=optional_str(data, "lastAttemptAt"),
            last_success_at=optional_str(data, "lastSuccessAt"),
            last_error=optional_str(data, "lastError"),
            error_reported=reported,
            failures=optional_int(data, "consecutiveFailures", minimum=0) or 0,
            needs_review=tuple(optional_str_list(data, "needsReview") or ()),
            moving_from=optional_str(data, "movingFrom"),
            moving_to=optional_str(data, "movingTo"),
        )


def load_sync_state(home: Home, agent_id: str, clock: Clock) -> SyncState:
    path = home.memory_sync_file(agent_id)
    try:
        data = load_json(path)
        return SyncState() if data is None else SyncState.from_json(data)
    except (CorruptFileError, ValueError) as exc:
        kept = quarantine_file(path, clock.now())
        log.warning("%s was unreadable (%s); kept as %s, starting afresh", path, exc, kept.name)
        return SyncState()


def save_sync_state(home: Home, agent_id: str, state: SyncState) -> None:
    save_json(home.memory_sync_file(agent_id), state.to_json())


def take_unreported_error(home: Home, agent_id: str, clock: Clock) -> str | None:
    """The last sync's error if nobody was told yet; marks it told, so it is shown once."""
    state = load_sync_state(home, agent_id, clock)
    if state.last_error is None or state.error_reported:
        return None
    save_sync_state(home, agent_id, replace(state, error_reported=True))
    return state.last_error


def files_needing_review(home: Home, agent_id: str, clock: Clock) -> tuple[str, ...]:
    """Files a sync left with a `## Needs review` block that is still there."""
    state = load_sync_state(home, agent_id, clock)
    return still_needing_review(home.memory_dir(agent_id), state.needs_review)


def still_needing_review(memory_dir: Path, paths: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `paths` that still hold a review block (or are a kept `.remote-` copy)."""
    if not paths:
        return ()
    from mini_letta.sync.conflicts import REVIEW_HEADING

    kept: list[str] = []
    for path in dict.fromkeys(paths):
        try:  # bounded and never through a link, like every memory reader
            text = read_memory_bytes(memory_dir, path).decode("utf-8", errors="replace")
        except (OSError, FrontmatterError):
            continue
        if REVIEW_HEADING in text or ".remote-" in path:
            kept.append(path)
    return tuple(kept)
