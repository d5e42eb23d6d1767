"""Compaction inside run_turn: thresholds, the event file, reminders, overflow, tiny windows."""

from __future__ import annotations

import pytest

from mini_letta.clock import format_timestamp
from mini_letta.context.builder import load_context_view
from mini_letta.context.compaction_flag import lower_compaction_flag
from mini_letta.context.reminders import REMINDER_ID_PREFIX
from mini_letta.context.summariser import SUMMARY_HEADER
from mini_letta.conversations.messages import Message, Usage
from mini_letta.conversations.store import ConversationStore
from mini_letta.ids import new_message_id
from mini_letta.llm.mock import CHAT_PREFIX, MockProvider
from mini_letta.loop.events import CompactionEvent, MessageEvent, TurnResult
from mini_letta.loop.pressure import measure_context
from mini_letta.loop.turn import run_turn
from mini_letta.storage.atomic import load_json
from mini_letta.structs import replace
from support.compaction_fakes import (
    CHINESE_TURNS,
    Crash,
    CrashingStore,
    EchoTool,
    OverflowingProvider,
    RecordingProvider,
    ToolCallingProvider,
    make_setup,
    request_tokens,
)

# These window sizes were chosen for a two-line system prompt; the compiled memory prompt
# (persona, human, metadata: about 300 tokens) would not leave room for the turns.
SMALL_SYSTEM = "You are a mini-letta test agent. Be direct and concise."


def _turn(setup, text):
    events = list(run_turn(setup, text))
    result = events[-1]
    assert isinstance(result, TurnResult)
    return [e for e in events if isinstance(e, CompactionEvent)], result


def _consume_event(store):
    """What the post-turn reflection decision does: a pending flag is lowered at turn end."""
    return lower_compaction_flag(store)


def _tool_calls_paired(messages):
    called: set[str] = set()
    for message in messages:
        called.update(call.id for call in message.tool_calls)
        if message.role == "tool" and message.tool_call_id not in called:
            return False
    return True


def test_twelve_chinese_turns_in_a_1200_token_window(world):
    provider = RecordingProvider(MockProvider(context_window=1200))
    setup = make_setup(world, provider)
    compacted = fired = 0
    for text in CHINESE_TURNS:
        compactions, result = _turn(setup, text)
        assert result.stop_reason == "end_turn"
        assert result.text == CHAT_PREFIX + text
        if compactions:
            event = load_json(setup.store.files.compaction_flag)
            assert event is not None and event["pending"] is True
            assert event["summaryMessageId"] == compactions[-1].summary_message_id
            assert event["schemaVersion"] == 1 and event["trigger"] in (
                "before-call",
                "after-response",
            )
            assert event["tokensAfter"] < event["tokensBefore"]
        compacted += len(compactions)
        fired += _consume_event(setup.store)
    assert compacted > 0
    assert fired == compacted  # each compaction is seen by exactly one turn end
    sizes = [request_tokens(r) for r in provider.chat_requests()]
    assert max(sizes) <= 1200
    log = list(setup.store.all())
    assert [m.content for m in log if m.role == "user"] == list(CHINESE_TURNS)
    assert sum(1 for m in log if m.role == "assistant") == 12
    assert sum(1 for m in log if m.role == "summary") == compacted


def test_turns_without_compaction_leave_no_pending_event(world):
    setup = make_setup(world, MockProvider(context_window=1200))
    for text in CHINESE_TURNS[:3]:
        compactions, _ = _turn(setup, text)
        assert compactions == []
    assert load_json(setup.store.files.compaction_flag) is None


def test_every_request_carries_the_reminder_once_and_again_after_compaction(world):
    provider = RecordingProvider(MockProvider(context_window=1000))
    setup = make_setup(world, provider)
    moved_after_compaction = False
    for text in CHINESE_TURNS:
        compactions, _ = _turn(setup, text)
        request = provider.chat_requests()[-1]
        positions = [
            i for i, m in enumerate(request.messages) if m.id.startswith(REMINDER_ID_PREFIX)
        ]
        assert len(positions) == 1
        reminder = request.messages[positions[0]]
        carrier = request.messages[positions[0] + 1]
        assert carrier.role == "user" and reminder.id == REMINDER_ID_PREFIX + carrier.id
        assert setup.agent.id in reminder.content and str(world.cwd) in reminder.content
        assert str(world.home.memory_dir(setup.agent.id)) in reminder.content
        if request.messages[0].role == "summary" and carrier.content == text:
            moved_after_compaction = True
        assert not any(m.id.startswith(REMINDER_ID_PREFIX) for m in setup.store.all())
    assert moved_after_compaction


def test_kept_tool_results_always_have_their_calls(world):
    provider = RecordingProvider(ToolCallingProvider(context_window=900, calls_per_turn=2))
    setup = make_setup(world, provider, tools=(EchoTool(),))
    compacted = 0
    for text in CHINESE_TURNS[:8]:
        compactions, result = _turn(setup, text)
        assert result.stop_reason == "end_turn" and result.steps == 3
        compacted += len(compactions)
        view = load_context_view(setup.store, 100_000)
        assert _tool_calls_paired(view.messages)
    assert compacted >= 2
    for request in provider.chat_requests():
        assert _tool_calls_paired(request.messages)
        assert request_tokens(request) <= 900


def test_a_summary_of_a_summary_does_not_nest(world):
    provider = RecordingProvider(MockProvider(context_window=700))
    setup = make_setup(world, provider, system=SMALL_SYSTEM)  # tiny-window arithmetic
    for text in CHINESE_TURNS:
        _turn(setup, text)
    summaries = [m for m in setup.store.all() if m.role == "summary"]
    assert len(summaries) >= 2
    for summary in summaries:
        assert summary.content.count(SUMMARY_HEADER) == 1
        assert summary.content.count("User said:") == 1
    later = [r for r in provider.requests if r.purpose == "summary"][1:]
    assert later
    for request in later:
        transcript = request.messages[-1].content
        assert transcript.count("[earlier summary] User said:") == 1
        assert SUMMARY_HEADER not in transcript
    # The newest summary still carries the most recent statements it replaced.
    newest = summaries[-1]
    assert "- " in newest.content


def test_provider_overflow_compacts_and_retries(world):
    provider = OverflowingProvider(context_window=8000, limit=700)
    setup = make_setup(world, provider)
    triggers: list[str] = []
    for text in CHINESE_TURNS:
        compactions, result = _turn(setup, text)
        assert result.stop_reason == "end_turn", result.error
        assert result.text == CHAT_PREFIX + text
        triggers += [c.trigger for c in compactions]
    assert provider.overflows  # the provider did refuse some requests
    assert "overflow" in triggers and set(triggers) == {"overflow"}
    event = load_json(setup.store.files.compaction_flag)
    assert event is not None and event["trigger"] == "overflow"


def test_overflow_that_compaction_cannot_fix_ends_the_turn(world):
    provider = OverflowingProvider(context_window=8000, limit=10)
    setup = make_setup(world, provider)
    for text in CHINESE_TURNS[:3]:
        _, result = _turn(setup, text)
    assert result.stop_reason == "error"
    assert "prompt is too long" in (result.error or "")
    # Initial call plus at most three compact-and-retry rounds, per turn.
    assert len(provider.overflows) <= 3 * 4
    assert [m.content for m in setup.store.all() if m.role == "user"] == list(CHINESE_TURNS[:3])


@pytest.mark.parametrize(
    ("window", "text"),
    [(40, "你好"), (250, "很长的一句话。" * 40)],
    ids=["window-below-system-prompt", "message-longer-than-window"],
)
def test_window_too_small_is_a_clear_error_not_a_loop(world, window, text):
    provider = RecordingProvider(MockProvider(context_window=window))
    setup = make_setup(world, provider)
    if window > 100:  # a few short turns first, so there is something compaction could take
        for short in ("一", "二"):
            _turn(replace(setup, provider=MockProvider(context_window=8000)), short)
    compactions, result = _turn(setup, text)
    assert result.stop_reason == "error"
    assert f"context window of {window} tokens is too small" in (result.error or "")
    assert compactions == [] and provider.requests == []
    assert [m.content for m in setup.store.all() if m.role == "user"][-1] == text


def test_the_model_sees_the_summary_then_the_kept_messages(world):
    provider = RecordingProvider(MockProvider(context_window=1000))
    setup = make_setup(world, provider)
    for text in CHINESE_TURNS:
        compactions, _ = _turn(setup, text)
        if compactions:
            break
    _turn(setup, "还有一件事")
    request = provider.chat_requests()[-1]
    roles = [m.role for m in request.messages]
    assert roles[0] == "summary"
    assert roles[1] == "user"  # the reminder, then its carrier, or the first kept user message
    assert request.messages[-1].content == "还有一件事"


def test_compaction_events_are_followed_by_the_summary_message(world):
    setup = make_setup(world, MockProvider(context_window=900))
    for text in CHINESE_TURNS:
        events = list(run_turn(setup, text))
        for index, event in enumerate(events):
            if isinstance(event, CompactionEvent):
                following = events[index + 1]
                assert isinstance(following, MessageEvent)
                assert following.message.id == event.summary_message_id
                assert following.message.role == "summary"
                store = ConversationStore(setup.agent.id, setup.store.conversation_id, world.home)
                assert store.at_line(following.line) == following.message
                return
    pytest.fail("no compaction happened")


def test_a_turn_after_a_crash_mid_compaction_settles_it_and_continues(world):
    setup = make_setup(world, MockProvider(context_window=900))
    store = setup.store
    crashing = replace(
        setup, store=CrashingStore(store.agent_id, store.conversation_id, world.home)
    )
    done = 0
    with pytest.raises(Crash):
        for text in CHINESE_TURNS:
            list(run_turn(crashing, text))
            done += 1
    view = load_context_view(store, 100_000)
    assert view.summary is not None  # the summary reached the log ...
    assert store.load_record().context.summary_message_id is None  # ... the pointer did not
    assert load_json(store.files.compaction_flag) is None
    compactions, result = _turn(setup, "我们继续吧")
    assert result.stop_reason == "end_turn" and result.text == CHAT_PREFIX + "我们继续吧"
    newest = compactions[-1].summary_message_id if compactions else view.summary.id
    assert store.load_record().context.summary_message_id == newest
    event = load_json(store.files.compaction_flag)
    assert event is not None and event["pending"] and event["summaryMessageId"] == newest
    users = [m.content for m in store.all() if m.role == "user"]
    assert users == [*CHINESE_TURNS[: done + 1], "我们继续吧"]


def test_summaries_never_split_a_tool_call_from_its_result_in_the_log(world):
    setup = make_setup(world, ToolCallingProvider(context_window=900), tools=(EchoTool(),))
    for text in CHINESE_TURNS[:8]:
        _turn(setup, text)
    log = list(setup.store.all())
    assert any(m.role == "summary" for m in log)
    for index, message in enumerate(log):
        if message.tool_calls:
            following = log[index + 1 : index + 1 + len(message.tool_calls)]
            assert [m.tool_call_id for m in following] == [c.id for c in message.tool_calls]


def test_too_small_to_summarise_in_but_the_request_fits(world):
    provider = RecordingProvider(MockProvider(context_window=280))
    setup = make_setup(world, provider, system=SMALL_SYSTEM)  # tiny-window arithmetic
    results = []
    for _ in range(30):
        compactions, result = _turn(setup, "好")
        assert compactions == []
        results.append(result)
        if result.stop_reason == "error":
            break
    assert "too small for summarising the conversation" in (results[-1].error or "")
    over_threshold = [r for r in provider.chat_requests() if request_tokens(r) > 224]
    assert over_threshold  # sent although over the threshold, since it still fit the window
    assert all(request_tokens(r) <= 280 for r in provider.chat_requests())
    assert [r.stop_reason for r in results[:-1]] == ["end_turn"] * (len(results) - 1)


@pytest.mark.parametrize("usage", [None, Usage(input_tokens=900, output_tokens=40)])
def test_the_size_after_an_answer_is_what_reading_the_log_again_would_give(world, usage):
    """The check after the final response sizes the last request plus its answer instead of
    reading the log again; both must agree (with and without reported usage)."""
    setup = make_setup(world, MockProvider(context_window=1200))
    for text in CHINESE_TURNS[:3]:
        _turn(setup, text)
    now = format_timestamp(world.clock.now())
    setup.store.append(
        Message(
            id=new_message_id(world.clock.now()),
            role="user",
            content=CHINESE_TURNS[3],
            created_at=now,
        )
    )
    before = measure_context(setup)
    answer = Message(
        id=new_message_id(world.clock.now()),
        role="assistant",
        content="好的。",
        created_at=now,
        usage=usage,
        stop_reason="end_turn",
    )
    setup.store.append(answer)
    again = measure_context(setup)
    sized = before.with_answer(answer)
    assert sized.request.messages == again.request.messages
    assert sized.tokens == again.tokens
