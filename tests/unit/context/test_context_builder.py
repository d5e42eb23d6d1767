"""load_context_view: the view derived from the log plus the pointer, bounded by the budget."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mini_letta.context.builder import load_context_view
from mini_letta.conversations.messages import CompactionInfo, Message, ToolCall
from mini_letta.conversations.records import ContextPointer
from mini_letta.conversations.registry import create_conversation
from mini_letta.conversations.store import ConversationStore
from mini_letta.llm.tokens import estimate_messages_tokens

_count = 0


def msg(role: str, content: str = "x", **fields) -> Message:
    global _count
    _count += 1
    return Message(
        id=f"msg-{_count:06d}",
        role=role,
        content=content,
        created_at="2026-10-08T16:06:58.000Z",
        **fields,
    )


def summary(kept_from: int, text: str = "summary") -> Message:
    info = CompactionInfo(kept_from, None, 3, 100, 40, "before-call")
    return msg("summary", text, compaction=info)


class CountingStore(ConversationStore):
    """Counts the log lines the view reads (injected instead of the real store)."""

    read = 0

    def iter_reverse(self) -> Iterator[tuple[int, Message]]:
        for item in super().iter_reverse():
            self.read += 1
            yield item


@pytest.fixture
def store(home, clock) -> ConversationStore:
    made = create_conversation(home, "agent-test", clock)
    return CountingStore(made.agent_id, made.conversation_id, home)


def _point(store: ConversationStore, start: int, summary_id: str | None) -> None:
    record = store.load_record()
    store.save_record(record.with_updates(context=ContextPointer(start, None, summary_id)))


def _exchange(n: int) -> list[Message]:
    out = []
    for i in range(n):
        out += [msg("user", f"u{i}"), msg("assistant", f"a{i}")]
    return out


def test_a_fresh_log_is_the_whole_view(store):
    messages = _exchange(3)
    store.append(messages)
    view = load_context_view(store, 10_000)
    assert view.messages == tuple(messages)
    assert view.lines == tuple(range(6))
    assert view.summary is None and not view.truncated
    assert view.tokens == estimate_messages_tokens(messages)


def test_the_view_is_the_summary_then_what_it_keeps_then_newer_messages(store):
    old = _exchange(3)  # lines 0-5
    store.append(old)
    s = summary(kept_from=4)  # keeps u2, a2; line 6
    store.append(s)
    newer = _exchange(1)  # lines 7-8
    store.append(newer)
    _point(store, 4, s.id)
    view = load_context_view(store, 10_000)
    assert view.messages == (s, old[4], old[5], *newer)
    assert view.lines == (6, 4, 5, 7, 8)
    assert view.first_line == 4 and view.summary == s
    assert view.fresh_from == 3


def test_a_summary_appended_after_the_pointer_is_recognised(store):
    """A crash between appending the summary and moving the pointer loses nothing."""
    old = _exchange(3)
    store.append(old)
    s = summary(kept_from=4)
    store.append(s)  # the pointer still says line 0
    view = load_context_view(store, 10_000)
    assert view.messages == (s, old[4], old[5])
    assert view.record.context.summary_message_id is None


def test_an_older_summary_is_folded_into_the_newer_one(store):
    store.append(_exchange(2))  # 0-3
    first = summary(kept_from=2)  # line 4, keeps 2-3
    store.append(first)
    later = _exchange(2)  # 5-8
    store.append(later)
    second = summary(kept_from=3)  # line 9: keeps a1 (line 3), then 5-8 minus summaries
    store.append(second)
    _point(store, 3, second.id)
    view = load_context_view(store, 10_000)
    assert [m.role for m in view.messages].count("summary") == 1
    assert view.messages[0] == second
    assert view.messages[1:] == tuple(later)  # a1 at line 3 is dropped: views start at a user


def test_the_budget_keeps_the_newest_and_starts_at_a_user_message(store):
    messages = _exchange(20)
    store.append(messages)
    budget = estimate_messages_tokens(messages[-5:])
    view = load_context_view(store, budget)
    assert view.truncated
    assert view.messages[0].role == "user"
    assert view.messages == tuple(messages[-4:])
    assert view.tokens <= budget


def test_a_tool_result_never_starts_the_view(store):
    call = ToolCall("c1", "echo", "{}")
    messages = [
        msg("user", "u"),
        msg("assistant", "", tool_calls=(call,)),
        msg("tool", "r" * 400, tool_call_id="c1", name="echo"),
        msg("user", "v"),
        msg("assistant", "w"),
    ]
    store.append(messages)
    view = load_context_view(store, estimate_messages_tokens(messages[2:]))
    assert view.messages == tuple(messages[3:])


def test_the_view_reads_only_back_to_the_pointer(store):
    for _ in range(10):
        store.append(_exchange(100))
    s = summary(kept_from=store.count() - 4)
    store.append(s)
    store.append(_exchange(2))
    _point(store, s.compaction.kept_from_line, s.id)
    store.read = 0
    view = load_context_view(store, 1_000_000)
    assert len(view.messages) == 1 + 4 + 4
    # Four new, the summary, four kept and the line below that ends the scan; not the 1,995 others.
    assert store.read == 10


def test_the_view_reads_only_as_far_back_as_the_budget(store):
    for _ in range(10):
        store.append(_exchange(100))
    store.read = 0
    view = load_context_view(store, 200)
    assert view.truncated
    assert store.read <= len(view.messages) + 2


def test_a_pointer_past_the_end_is_ignored(store):
    messages = _exchange(2)
    store.append(messages)
    _point(store, 50, None)
    assert load_context_view(store, 10_000).messages == tuple(messages)


def test_an_empty_log_gives_an_empty_view(store):
    view = load_context_view(store, 100)
    assert view.messages == () and view.tokens == 0 and view.first_line == 0
