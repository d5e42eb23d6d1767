"""Time as a seam: the core asks a `Clock`, so tests drive time without patching."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def format_timestamp(moment: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and a Z, the one timestamp format on disk."""
    if moment.tzinfo is UTC and moment.year >= 1000:  # the clocks' own times: isoformat, in C
        return moment.isoformat(timespec="milliseconds")[:23] + "Z"  # cut "+00:00"
    return (
        moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    )
