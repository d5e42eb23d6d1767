"""The one on-disk timestamp format: UTC, milliseconds cut (not rounded), a Z."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

from mini_letta.clock import format_timestamp


def _by_strftime(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def test_a_timestamp_is_utc_with_milliseconds_cut_and_a_z():
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, 999_999, tzinfo=UTC)) == (
        "2026-01-02T03:04:05.999Z"
    )
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05.000Z"
    east = timezone(timedelta(hours=8))
    assert format_timestamp(datetime(2026, 1, 2, 1, 0, 0, 1_000, tzinfo=east)) == (
        "2026-01-01T17:00:00.001Z"
    )


def test_every_time_formats_as_the_strftime_rule_says():
    rng = random.Random(22)
    zones = [
        UTC,
        timezone(timedelta(0)),
        timezone(timedelta(hours=-5)),
        timezone(timedelta(minutes=330)),
    ]
    for _ in range(2_000):
        moment = datetime(
            rng.choice([rng.randrange(1, 10_000), rng.randrange(999, 1_001)]),
            rng.randrange(1, 13),
            rng.randrange(1, 29),
            rng.randrange(24),
            rng.randrange(60),
            rng.randrange(60),
            rng.randrange(1_000_000),
            tzinfo=rng.choice(zones),
        )
        if not 1 < moment.year < 9_999:
            continue  # astimezone may leave the calendar at its ends
        assert format_timestamp(moment) == _by_strftime(moment), moment
