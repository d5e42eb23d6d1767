"""Helpers the benchmarks share: a median timer and a fast way to grow a conversation log."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mini_letta.clock import SystemClock, format_timestamp  # noqa: E402
from mini_letta.conversations.messages import Message, Usage  # noqa: E402
from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.ids import new_message_id  # noqa: E402

SENTENCE = "这是一条用来测试的消息，我们在讨论接口的设计和错误处理"
BATCH = 5000


def median_ms(action: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def fill_conversation(store: ConversationStore, count: int) -> None:
    """Append `count` messages shaped like mock turns (user, answer), in large batches."""
    clock = SystemClock()
    pending: list[Message] = []
    for i in range(count):
        now = clock.now()
        if i % 2 == 0:
            message = Message(new_message_id(now), "user", f"{i} {SENTENCE}", format_timestamp(now))
        else:
            message = Message(
                new_message_id(now),
                "assistant",
                f"（mock）我听到了：{i - 1} {SENTENCE}",
                format_timestamp(now),
                usage=Usage(1, 1),  # implausibly low: ignored, so the estimate is what counts
                stop_reason="end_turn",
                model="mock",
            )
        pending.append(message)
        if len(pending) == BATCH:
            store.append(pending)
            pending = []
    if pending:
        store.append(pending)
