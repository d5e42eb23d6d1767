"""The one retry policy: transient failures retried before the first event only, on the clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mini_letta.errors import AuthError, TransientError
from mini_letta.llm.base import ModelEvent, ModelRequest, StopEvent, TextDelta, collect
from mini_letta.llm.retry import RetryingProvider, RetryPolicy

REQUEST = ModelRequest("", ())


class Flaky:
    """Fails with the queued errors (one per call), then answers; records every call."""

    handle = "flaky/x"
    context_window = 1000

    def __init__(self, *failures: Exception, fail_after_text: bool = False) -> None:
        self.failures = list(failures)
        self.fail_after_text = fail_after_text
        self.calls = 0

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        self.calls += 1
        if self.failures:
            error = self.failures.pop(0)
            if self.fail_after_text:
                yield TextDelta("partial")
            raise error
        yield TextDelta("answer")
        yield StopEvent("end_turn")


def test_retry_succeeds_after_transient_failures_with_exponential_backoff(clock):
    inner = Flaky(TransientError("a"), TransientError("b"))
    provider = RetryingProvider(inner, clock)
    assert collect(provider.stream(REQUEST)).text == "answer"
    assert clock.sleeps == [1.0, 2.0]
    assert inner.calls == 3


def test_retry_honours_retry_after_and_caps_it(clock):
    inner = Flaky(TransientError("a", retry_after=5), TransientError("b", retry_after=3600))
    collect(RetryingProvider(inner, clock).stream(REQUEST))
    assert clock.sleeps == [5.0, 60.0]


def test_retry_gives_up_after_max_retries_keeping_the_kind(clock):
    inner = Flaky(*[TransientError("busy", retry_after=2) for _ in range(5)])
    provider = RetryingProvider(inner, clock, RetryPolicy(max_retries=2))
    with pytest.raises(TransientError, match="busy .gave up after 3 attempts") as caught:
        collect(provider.stream(REQUEST))
    assert caught.value.retry_after == 2
    assert inner.calls == 3 and clock.sleeps == [2.0, 2.0]


def test_retry_never_after_the_first_event(clock):
    inner = Flaky(TransientError("mid-stream"), fail_after_text=True)
    with pytest.raises(TransientError, match="mid-stream"):
        collect(RetryingProvider(inner, clock).stream(REQUEST))
    assert inner.calls == 1 and clock.sleeps == []


def test_retry_leaves_other_errors_alone(clock):
    inner = Flaky(AuthError("bad key"))
    with pytest.raises(AuthError):
        collect(RetryingProvider(inner, clock).stream(REQUEST))
    assert inner.calls == 1 and clock.sleeps == []


def test_retrying_provider_looks_like_the_inner_one(clock):
    provider = RetryingProvider(Flaky(), clock)
    assert (provider.handle, provider.context_window) == ("flaky/x", 1000)


@pytest.mark.parametrize(
    ("attempt", "retry_after", "expected"),
    [(1, None, 1.0), (2, None, 2.0), (3, None, 4.0), (7, None, 60.0), (1, 0.5, 0.5), (1, -1, 0.0)],
    ids=["first", "second", "third", "capped", "server-says", "negative"],
)
def test_retry_policy_delay(attempt, retry_after, expected):
    assert RetryPolicy().delay(attempt, retry_after) == expected
