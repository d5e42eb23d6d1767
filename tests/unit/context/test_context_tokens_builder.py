from __future__ import annotations

import pytest

from mini_letta.clock import format_timestamp
from mini_letta.context.builder import load_context_view
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.conversations.registry import create_conversation
from mini_letta.llm.tokens import estimate_tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("abcd", 1), ("abcde", 2), ("你好世界", 4), ("（mock）", 3), ("hi 你好", 3)],
    ids=["empty", "four-ascii", "five-ascii", "four-han", "fullwidth-parens", "mixed"],
)
def test_estimate_tokens_is_cjk_aware(text, expected):
    assert estimate_tokens(text) == expected


def _msg(i: int, role: str, clock, **kw) -> Message:
    return Message(f"msg-{i:04d}", role, f"text {i}", format_timestamp(clock.now()), **kw)


def test_view_keeps_newest_within_budget_and_starts_at_user(home, clock):
    store = create_conversation(home, "agent-x", clock)
    batch = []
    for i in range(0, 40, 4):
        batch += [
            _msg(i, "user", clock),
            _msg(i + 1, "assistant", clock, tool_calls=(ToolCall(f"c{i}", "t", "{}"),)),
            _msg(i + 2, "tool", clock, tool_call_id=f"c{i}"),
            _msg(i + 3, "assistant", clock),
        ]
    store.append(batch)
    full = load_context_view(store, 10_000)
    assert len(full.messages) == 40 and not full.truncated
    small = load_context_view(store, 40)  # the last exchange, with its call ids, is 32 tokens
    assert small.truncated
    assert small.messages[0].role == "user"
    assert small.messages[-1].id == "msg-0039"
    assert small.tokens <= 40


def test_view_honours_context_start_line(home, clock):
    store = create_conversation(home, "agent-x", clock)
    store.append([_msg(i, "user" if i % 2 == 0 else "assistant", clock) for i in range(10)])
    record = store.load_record()
    store.save_record(record.with_updates(context=record.context.__class__(start_line=6)))
    view = load_context_view(store, 10_000)
    assert [m.id for m in view.messages] == ["msg-0006", "msg-0007", "msg-0008", "msg-0009"]
    assert view.first_line == 6
