"""A backlog: a reflection after a turn takes one slice and leaves the rest; `reflect_backlog`
takes it all with a progress event per slice, stops between slices when asked and resumes at
the watermark; the plan estimates slices, tokens and (for a priced model) the cost."""

from __future__ import annotations

import pytest

from mini_letta.agents.registry import load_agent
from mini_letta.llm.prices import price_of
from mini_letta.reflection.policy.trigger import maybe_reflect_after_turn
from mini_letta.reflection.run.backlog import (
    estimate_slices,
    plan_backlog,
    reflect_backlog,
)
from mini_letta.reflection.state.records import list_run_records
from mini_letta.reflection.state.settings import save_reflection_settings
from mini_letta.reflection.state.watermark import backlog_messages, read_reflection_state
from mini_letta.structs import replace
from mini_letta.workspace import resolve_conversation
from support.agents import fresh_agent
from support.reflection_kit import add_turn

FILLER = "We walked through the next part of the migration script and its error handling. " * 3
SMALL_WINDOW = 4_096  # a few hundred tokens of transcript per slice


@pytest.fixture
def small(world):
    """An agent with a small window and a backlog of about four slices (the plan's estimate;
    three are enough to take one, take the next, and still have one waiting)."""
    agent = fresh_agent(world, name="small", context_window=SMALL_WINDOW)
    store = resolve_conversation(world, agent, None)
    for n in range(15):
        add_turn(store, world.clock, f"{FILLER} ({n})", answer="Sure, next step.")
    add_turn(store, world.clock, "I prefer tabs for indentation.", answer="Noted.")
    return agent, store


def test_a_reflection_after_a_turn_takes_one_slice_and_says_what_waits(world, small):
    agent, store = small
    patch = {"trigger": "step-count", "stepCount": 3}
    save_reflection_settings(world.home, world.cwd, agent, patch, "agent")
    agent = load_agent(world.home, agent.id)
    before = backlog_messages(store)
    outcome = maybe_reflect_after_turn(world, agent, store, platform="linux")
    assert outcome.launched and outcome.ok
    assert len(list_run_records(world.home, agent.id)) == 1
    left = backlog_messages(store)
    assert 0 < left < before
    assert f"{left} message(s) still wait: `mini-letta reflect --all`" in outcome.message
    # the next turn's reflection takes the next slice, and only that
    maybe_reflect_after_turn(world, agent, store, platform="linux")
    assert len(list_run_records(world.home, agent.id)) == 2
    assert backlog_messages(store) < left


def test_the_whole_backlog_with_a_progress_event_per_slice(world, small):
    agent, store = small
    plan = plan_backlog(world, agent, store)
    assert plan.messages == store.count() and plan.slices >= 3 and plan.cost is None
    events = []
    result = reflect_backlog(world, agent, store, plan=plan, on_slice=events.append)
    assert result.outcome.ok and not result.stopped and result.messages_left == 0
    assert [e.slices_done for e in events] == list(range(1, len(events) + 1))
    assert len(events) == result.slices == len(list_run_records(world.home, agent.id))
    assert events[-1].messages_left == 0 and events[-1].slices_left == 0
    assert events[-1].messages_done == plan.messages
    assert all(a.messages_done < b.messages_done for a, b in zip(events, events[1:], strict=False))
    assert events[-1].tokens_done > 0 and events[0].eta is not None
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text()
    assert "tabs" in human
    assert read_reflection_state(store).reflected_through_line == store.count() - 1


def test_stopping_between_slices_keeps_them_and_a_later_call_resumes(world, small):
    agent, store = small
    events = []
    first = reflect_backlog(
        world, agent, store, on_slice=events.append, should_stop=lambda: len(events) >= 2
    )
    assert first.stopped and first.slices == 2 and first.messages_left > 0
    assert backlog_messages(store) == first.messages_left
    second = reflect_backlog(world, agent, store)
    assert not second.stopped and second.messages_left == 0
    records = list_run_records(world.home, agent.id)
    slices = sorted((r.slices[0].start_line, r.slices[0].slice_end_line) for r in records)
    assert slices[0][0] == 0 and slices[-1][1] == store.count()
    assert all(
        a[1] == b[0] for a, b in zip(slices, slices[1:], strict=False)
    )  # no gap, nothing twice


def test_a_priced_model_gets_a_cost_estimate_and_nothing_is_sent(world, small):
    mock_agent, store = small
    plan = plan_backlog(world, mock_agent, store)
    world = replace(world, environ={"OPENAI_API_KEY": "sk-not-a-real-key"})
    agent = mock_agent.with_updates(model="openai/gpt-4o-mini")
    priced = plan_backlog(world, agent, store)  # an unreachable key: a request would fail
    assert priced.model == "openai/gpt-4o-mini" and priced.messages == plan.messages
    assert priced.cost == pytest.approx(
        (priced.input_tokens * 0.15 + priced.output_tokens * 0.60) / 1_000_000
    )
    assert priced.input_tokens >= 3 * plan.tokens
    assert priced.to_json()["estimatedCostUsd"] is not None


@pytest.mark.parametrize(
    ("handle", "expected"),
    [
        ("openai/gpt-4o-mini-2024-07-18", (0.15, 0.60)),
        ("openai/gpt-4o", (2.50, 10.00)),
        ("anthropic/claude-sonnet-4-20250514", (3.00, 15.00)),
        ("mock", None),
        ("ollama/llama3", None),
    ],
    ids=["dated-snapshot", "family", "anthropic", "mock", "local"],
)
def test_prices_match_the_longest_known_prefix(handle, expected):
    price = price_of(handle)
    got = None if price is None else (price.input_per_million, price.output_per_million)
    assert got == expected


def test_slices_estimate():
    assert estimate_slices(0, 1000, 50.0) == 0
    assert estimate_slices(1, 1000, 50.0) == 1
    assert estimate_slices(100, 1000, 50.0) == 5


def test_status_shows_the_backlog_in_messages_and_slices(world, small):
    from mini_letta.reflection.history import health
    from mini_letta.reflection.run import budget
    from mini_letta.reflection.state.settings import load_reflection_settings

    assert health.MAX_CHUNK_TOKENS == budget.MAX_CHUNK_TOKENS
    agent, store = small
    settings = load_reflection_settings(world.home, world.cwd, agent)
    before = health.gather_health(world.home, agent, settings, world.clock, store.conversation_id)
    (conversation,) = before.conversations
    assert conversation.backlog_messages == store.count() and conversation.backlog_slices == 1
    reflect_backlog(world, agent, store, should_stop=lambda: True)  # one slice: the budget is set
    after = health.gather_health(world.home, agent, settings, world.clock, store.conversation_id)
    (conversation,) = after.conversations
    plan = plan_backlog(world, agent, store)
    assert conversation.backlog_messages == plan.messages > 0
    assert abs(conversation.backlog_slices - plan.slices) <= max(1, plan.slices // 3)
