"""A compaction whose summary would not shrink the context is not recorded as one."""

from __future__ import annotations

from mini_letta.context.compaction import (
    CompactionBudget,
    CompactionSkipped,
    compact_conversation,
)
from mini_letta.context.compaction_flag import load_compaction_flag
from mini_letta.conversations.messages import Message
from mini_letta.conversations.registry import create_conversation
from mini_letta.llm.mock import MockProvider
from mini_letta.loop.pressure import compact_now
from support.compaction_fakes import make_setup

BUDGET = CompactionBudget(window=1200, prompt_tokens=100, keep_tokens=60, summary_tokens=120)


def _short_exchanges(n: int) -> list[Message]:
    out = []
    for i in range(n):
        stamp = "2026-10-08T16:06:58.000Z"
        out += [
            Message(f"msg-u{i}", "user", f"hi {i}", stamp),
            Message(f"msg-a{i}", "assistant", "ok", stamp),
        ]
    return out


def test_a_summary_that_grows_the_context_leaves_log_and_pointer_untouched(home, clock):
    store = create_conversation(home, "agent-test", clock)
    store.append(_short_exchanges(3))
    log_before, record_before = store.log.path.read_bytes(), store.load_record()
    # Reported usage said the context was small (110 tokens); the summary is bigger.
    result = compact_conversation(store, MockProvider(), clock, BUDGET, "before-call", 110)
    assert isinstance(result, CompactionSkipped)
    assert result.tokens_after >= result.tokens_before == 110
    assert "would not shrink" in result.reason and "110 →" in result.reason
    assert store.log.path.read_bytes() == log_before
    assert store.load_record() == record_before
    assert load_compaction_flag(store) is None


def test_manual_compaction_of_a_tiny_conversation_says_why_it_did_nothing(world):
    setup = make_setup(world, MockProvider())
    setup.store.append(_short_exchanges(2))
    before = setup.store.log.path.read_bytes()
    result = compact_now(setup)
    assert isinstance(result, CompactionSkipped)
    assert result.tokens_after >= result.tokens_before
    assert setup.store.log.path.read_bytes() == before
