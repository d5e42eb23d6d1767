"""Failure backoff for automatic reflection: a failing run is retried less and less often.

After k consecutive failures, a step-count launch waits for stepCount × 2^k steps since the last
success (capped), and any automatic launch waits BASE × 2^(k-1) after the last attempt started
(capped), so a memory that stays dirty or a model that keeps failing is not retried every turn.
Manual runs ignore this. Pure functions of the state, the clock's time and the settings.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from mini_letta.conversations.store import ConversationStore
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.reflection.state.watermark import ReflectionState, steps_since_last_reflection

BASE_DELAY = timedelta(minutes=2)
MAX_DELAY = timedelta(hours=2)
MAX_DOUBLINGS = 5


def retry_delay(failures: int) -> timedelta:
    """How long after the last attempt the next automatic one may start."""
    if failures <= 0:
        return timedelta(0)
    return min(MAX_DELAY, BASE_DELAY * (1 << min(failures - 1, 10)))


def step_threshold(settings: ReflectionSettings, failures: int) -> int:
    """Steps since the last success a step-count launch needs after `failures` failures."""
    return settings.step_count * (1 << min(max(failures, 0), MAX_DOUBLINGS))


def is_backing_off(state: ReflectionState, now: datetime) -> bool:
    """True while the last attempt failed too recently for an automatic retry."""
    if state.consecutive_failures <= 0 or not state.last_reflection_started_at:
        return False
    try:
        started = datetime.fromisoformat(state.last_reflection_started_at)
    except ValueError:
        return False
    return now < started + retry_delay(state.consecutive_failures)


def is_step_count_due(
    store: ConversationStore, state: ReflectionState, settings: ReflectionSettings
) -> bool:
    """Enough steps since the last success for a step-count launch (failures raise the bar).

    Counts backwards from the end and stops at the threshold: O(stepCount), whatever the
    conversation's length.
    """
    threshold = step_threshold(settings, state.consecutive_failures)
    return steps_since_last_reflection(store, state, limit=threshold) >= threshold
