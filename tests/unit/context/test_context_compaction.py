"""compact_conversation: what is summarised, what is kept, what is written and in which order."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mini_letta.context.builder import compaction_threshold, load_context_view
from mini_letta.context.compaction import (
    CompactionBudget,
    choose_cut,
    compact_conversation,
    plan_budget,
)
from mini_letta.context.compaction_record import settle_compaction
from mini_letta.context.summariser import SUMMARY_HEADER
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.conversations.registry import create_conversation
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import BadRequestError, ContextOverflowError
from mini_letta.llm.base import ModelEvent, ModelRequest
from mini_letta.llm.mock import MockProvider
from mini_letta.storage.atomic import load_json
from support.compaction_fakes import (
    Crash,
    CrashingStore,
    OverflowingProvider,
    RecordingProvider,
    request_tokens,
)

_count = 0


def msg(role: str, content: str = "内容", **fields) -> Message:
    global _count
    _count += 1
    return Message(f"msg-{_count:06d}", role, content, "2026-10-08T16:06:58.000Z", **fields)


def exchanges(n: int, size: int = 1) -> list[Message]:
    out = []
    for i in range(n):
        out += [msg("user", f"第{i}句：" + "我们决定" * size), msg("assistant", f"好的 {i}")]
    return out


@pytest.fixture
def store(home, clock) -> ConversationStore:
    return create_conversation(home, "agent-test", clock)


BUDGET = CompactionBudget(window=1200, prompt_tokens=100, keep_tokens=60, summary_tokens=120)


@pytest.mark.parametrize(
    ("window", "threshold"),
    [(100_000, 83_616), (200_000, 183_616), (10_000, 8_000), (1_200, 960), (1_000, 800), (1, 0)],
    ids=["100k", "200k", "10k", "1200", "1k", "1"],
)
def test_threshold_reserves_min_16384_or_a_fifth(window, threshold):
    assert compaction_threshold(window) == threshold


def test_plan_budget_leaves_room_under_the_threshold():
    budget = plan_budget(1200, prompt_tokens=140)
    assert budget.keep_tokens == 360  # 30% of the window
    assert 140 + budget.summary_tokens + budget.keep_tokens < compaction_threshold(1200)
    assert plan_budget(1200, 140, shrink=2).keep_tokens == 180
    assert plan_budget(100, 400).keep_tokens == 0  # a prompt over the threshold keeps nothing


def _view(store, roles: str):
    kinds = {"u": "user", "a": "assistant", "t": "tool", "s": "summary"}
    messages = []
    for letter in roles:
        if letter == "s":
            from mini_letta.conversations.messages import CompactionInfo

            messages.append(msg("summary", "旧的", compaction=CompactionInfo(0, None, 1, 1, 1, "")))
        else:
            messages.append(msg(kinds[letter], "一二三四五六"))
    store.append(messages)
    return load_context_view(store, 100_000)


@pytest.mark.parametrize(
    ("roles", "keep", "cut"),
    [
        ("uaua", 1000, 2),  # everything fits: keep from the second user message
        ("uauaua", 25, 4),  # only the last exchange fits
        ("uatauata", 1, 4),  # nothing fits: keep the current user message and its turn
        ("ua", 1000, None),  # one exchange: nothing to summarise
        ("u", 1000, None),
        ("sua", 1000, None),  # only the old summary before the user message
        ("suaua", 1000, 3),
    ],
    ids=["all-fit", "last-fits", "none-fit", "one-exchange", "one-message", "summary-only", "sum"],
)
def test_choose_cut_starts_at_a_user_message(store, roles, keep, cut):
    assert choose_cut(_view(store, roles), keep) == cut


def test_compaction_appends_a_summary_moves_the_pointer_and_writes_the_event(store, clock):
    messages = exchanges(6)
    store.append(messages)
    before = store.log.path.read_bytes()
    result = compact_conversation(store, MockProvider(), clock, BUDGET, "before-call", 500)
    assert result is not None
    after = store.log.path.read_bytes()
    assert after.startswith(before) and store.count() == len(messages) + 1
    summary = store.at_line(result.line)
    assert summary == result.summary and summary.role == "summary"
    assert summary.content.startswith(SUMMARY_HEADER)
    kept_from = summary.compaction.kept_from_line
    assert messages[kept_from].role == "user"
    assert summary.compaction.kept_from_message_id == messages[kept_from].id
    assert result.messages_compacted == kept_from
    pointer = store.load_record().context
    assert (pointer.start_line, pointer.start_message_id, pointer.summary_message_id) == (
        kept_from,
        messages[kept_from].id,
        summary.id,
    )
    event = load_json(store.files.compaction_flag)
    assert event == {
        "schemaVersion": 1,
        "pending": True,
        "compactedAt": summary.created_at,
        "summaryMessageId": summary.id,
        "tokensBefore": 500,
        "tokensAfter": result.tokens_after,
        "trigger": "before-call",
        "messagesCompacted": result.messages_compacted,
    }
    view = load_context_view(store, 100_000)
    assert view.messages == (summary, *messages[kept_from:])
    assert result.tokens_after == BUDGET.prompt_tokens + view.tokens


def test_the_mock_summary_keeps_what_the_user_said(store, clock):
    messages = exchanges(6)
    store.append(messages)
    result = compact_conversation(store, MockProvider(), clock, BUDGET, "manual")
    kept_from = result.summary.compaction.kept_from_line
    for message in messages[:kept_from]:
        if message.role == "user":
            assert message.content in result.summary.content


def test_nothing_to_compact_writes_nothing(store, clock):
    store.append(exchanges(1))
    record = store.load_record()
    assert compact_conversation(store, MockProvider(), clock, BUDGET, "manual") is None
    assert store.count() == 2 and store.load_record() == record
    assert load_json(store.files.compaction_flag) is None


class FailingSummariser:
    handle = "test/failing"
    context_window = 1200

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        raise BadRequestError("summaries are not allowed here")
        yield  # pragma: no cover


def test_a_failing_summariser_leaves_everything_as_it_was(store, clock):
    store.append(exchanges(6))
    with pytest.raises(BadRequestError):
        compact_conversation(store, FailingSummariser(), clock, BUDGET, "before-call")
    assert store.count() == 12 and load_json(store.files.compaction_flag) is None


def test_an_overflowing_summariser_is_retried_on_a_middle_truncated_transcript(store, clock):
    store.append(exchanges(30, size=5))
    provider = RecordingProvider(
        OverflowingProvider(context_window=20_000, limit=600, purposes=("summary",))
    )
    budget = CompactionBudget(20_000, 100, 50, 120)
    result = compact_conversation(store, provider, clock, budget, "overflow")
    assert result is not None
    sizes = [request_tokens(r) for r in provider.requests]
    assert len(sizes) >= 2 and sizes == sorted(sizes, reverse=True)
    assert sizes[0] > 600 >= sizes[-1]
    transcript = provider.requests[-1].messages[-1].content
    assert "characters left out to fit the context window" in transcript
    assert "第0句" in transcript and "第28句" in transcript  # head and tail both survive


def test_a_summariser_that_always_overflows_gives_up_cleanly(store, clock):
    store.append(exchanges(6))
    provider = OverflowingProvider(context_window=20_000, limit=5, purposes=("summary",))
    with pytest.raises(ContextOverflowError, match="compaction was not applied"):
        compact_conversation(store, provider, clock, BUDGET, "overflow")
    assert store.count() == 12 and load_json(store.files.compaction_flag) is None
    assert len(provider.overflows) <= 7


def test_a_crash_between_the_two_writes_is_settled_on_next_read(store, clock, home):
    messages = exchanges(6)
    store.append(messages)
    crashing = CrashingStore(store.agent_id, store.conversation_id, home)
    with pytest.raises(Crash):
        compact_conversation(crashing, MockProvider(), clock, BUDGET, "before-call", 400)
    assert store.load_record().context.summary_message_id is None
    assert load_json(store.files.compaction_flag) is None
    view = load_context_view(store, 100_000)
    summary = view.summary
    assert summary is not None and view.messages[0] == summary
    assert view.messages[1:] == tuple(messages[summary.compaction.kept_from_line :])
    assert settle_compaction(store, view)
    assert store.load_record().context.summary_message_id == summary.id
    event = load_json(store.files.compaction_flag)
    assert event["pending"] and event["summaryMessageId"] == summary.id
    assert event["tokensBefore"] == 400
    assert not settle_compaction(store, load_context_view(store, 100_000))


def test_compaction_never_orphans_a_tool_result(store, clock):
    call = ToolCall("c1", "echo", '{"text": "查一下"}')
    messages = [
        *exchanges(2, size=40),  # big enough that a summary shrinks them
        msg("user", "请查一下"),
        msg("assistant", "", tool_calls=(call,)),
        msg("tool", "结果" * 50, tool_call_id="c1", name="echo"),
        msg("assistant", "查好了"),
    ]
    store.append(messages)
    budget = CompactionBudget(1200, 100, keep_tokens=20, summary_tokens=100)
    result = compact_conversation(store, MockProvider(), clock, budget, "before-call")
    kept = load_context_view(store, 100_000).messages[1:]
    assert kept[0].role == "user" and kept[0].content == "请查一下"
    assert result.messages_compacted == 4
    assert "echo" not in result.summary.content  # the call was kept, not summarised
