"""Backoff after failures: doubling delays and step thresholds, capped; success resets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mini_letta.reflection.policy.backoff import (
    MAX_DELAY,
    is_backing_off,
    retry_delay,
    step_threshold,
)
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.reflection.state.watermark import ReflectionState

STARTED = "2026-10-08T16:00:00.000Z"
T0 = datetime(2026, 10, 8, 16, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("failures", "minutes"), [(0, 0), (1, 2), (2, 4), (3, 8), (7, 120), (50, 120)]
)
def test_retry_delay_doubles_and_is_capped(failures, minutes):
    assert retry_delay(failures) == timedelta(minutes=minutes)
    assert retry_delay(failures) <= MAX_DELAY


@pytest.mark.parametrize(("failures", "steps"), [(0, 3), (1, 6), (2, 12), (5, 96), (9, 96)])
def test_step_threshold_doubles_and_is_capped(failures, steps):
    assert step_threshold(ReflectionSettings("step-count", 3), failures) == steps


def test_backing_off_until_the_delay_passes():
    state = ReflectionState(consecutive_failures=2, last_reflection_started_at=STARTED)
    assert is_backing_off(state, T0 + timedelta(minutes=3))
    assert not is_backing_off(state, T0 + timedelta(minutes=4))


def test_no_failures_or_no_start_never_backs_off():
    assert not is_backing_off(ReflectionState(), T0)
    assert not is_backing_off(ReflectionState(consecutive_failures=3), T0)
    bad = ReflectionState(consecutive_failures=3, last_reflection_started_at="yesterday")
    assert not is_backing_off(bad, T0)
