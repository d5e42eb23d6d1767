"""The one retry policy: transient failures are retried before the first event, never after.

A `TransientError` raised before the provider yielded anything (the request never produced
output, so a retry cannot duplicate text the user saw) is retried up to `max_retries` times,
waiting the server's `retry-after` when it gave one, else 1 s, 2 s, 4 s…, at most `max_delay`,
on the injected clock. Any other error, or one after the first event, propagates unchanged.
SDK-level retries are off (`max_retries=0`), so this is the whole policy.
"""

from __future__ import annotations

from collections.abc import Iterator

from mini_letta import log
from mini_letta.clock import Clock
from mini_letta.errors import TransientError
from mini_letta.llm.base import ModelEvent, ModelRequest, Provider, close_provider
from mini_letta.structs import Struct

MAX_RETRIES = 3
BASE_DELAY = 1.0
MAX_DELAY = 60.0


class RetryPolicy(Struct, frozen=True):
    max_retries: int = MAX_RETRIES
    base_delay: float = BASE_DELAY
    max_delay: float = MAX_DELAY

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        wanted = retry_after if retry_after is not None else self.base_delay * 2 ** (attempt - 1)
        return min(max(wanted, 0.0), self.max_delay)


class RetryingProvider:
    """Wraps a provider; looks like it (same handle and window) but retries transient starts."""

    def __init__(self, inner: Provider, clock: Clock, policy: RetryPolicy | None = None) -> None:
        self.inner = inner
        self.clock = clock
        self.policy = policy or RetryPolicy()
        self.handle = inner.handle
        self.context_window = inner.context_window

    def close(self) -> None:
        close_provider(self.inner)

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        attempt = 0
        while True:
            events = self.inner.stream(request)
            try:
                first = next(events)
            except StopIteration:
                return
            except TransientError as exc:
                attempt += 1
                if attempt > self.policy.max_retries:
                    raise TransientError(
                        f"{exc} (gave up after {attempt} attempts)", exc.retry_after
                    ) from exc
                wait = self.policy.delay(attempt, exc.retry_after)
                log.warning(
                    "%s; retrying in %gs (retry %d of %d)",
                    exc,
                    wait,
                    attempt,
                    self.policy.max_retries,
                )
                self.clock.sleep(wait)
                continue
            yield first
            yield from events
            return


def with_retries(provider: Provider, clock: Clock) -> RetryingProvider:
    return RetryingProvider(provider, clock)
