"""Automatic launches: queued behind a running reflection, drained, failures counted; the outbox."""

from __future__ import annotations

import json
import logging

import pytest

from mini_letta.errors import TransientError
from mini_letta.llm.mock import MockProvider
from mini_letta.reflection.policy.launcher import (
    QueuedLaunch,
    drain_queued_launches,
    launch_automatic,
    put_queued_launch,
    take_queued_launch,
)
from mini_letta.reflection.policy.trigger import decide_after_turn
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.lease import acquire_lease
from mini_letta.reflection.state.outbox import (
    post_automatic_outcome,
    post_outcome,
    take_outcomes,
)
from mini_letta.reflection.state.outcome import Queued, ReflectionOutcome
from mini_letta.reflection.state.records import list_run_records
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.reflection.state.watermark import read_reflection_state
from mini_letta.workspace import new_agent, resolve_conversation
from support.reflection_kit import ScriptedProvider, SideEffectProvider, add_turn

HOLDER = "20261008160000-00000001"


@pytest.fixture
def other(world, agent):
    return resolve_conversation(world, agent, None, new=True)


def _lasting(store, clock, text="我更喜欢用 tabs 缩进"):
    add_turn(store, clock, text, answer=f"（mock）我听到了：{text}")


def _queued(world, agent):
    path = world.home.reflection_queue_file(agent.id)
    return json.loads(path.read_text()) if path.exists() else None


def _drain(world, agent, **kwargs):
    seen: list[ReflectionOutcome] = []
    started = drain_queued_launches(world, agent, seen.append, **kwargs)
    return started, seen


# ----- run now, or queue -------------------------------------------------------------------------


def test_a_free_lease_runs_now_with_the_trigger_recorded(world, agent, store):
    _lasting(store, world.clock)
    outcome = launch_automatic(world, agent, store, "step-count")
    assert (outcome.status, outcome.trigger) == ("merged", "step-count")
    (record,) = list_run_records(world.home, agent.id)
    assert record.trigger == "step-count"
    assert _queued(world, agent) is None


def test_a_held_lease_queues_and_the_holder_runs_it_when_done(world, agent, store):
    _lasting(store, world.clock)
    with acquire_lease(world.home, agent.id, HOLDER, world.clock):
        outcome = launch_automatic(world, agent, store, "compaction-event")
        assert isinstance(outcome, Queued)
        assert HOLDER in outcome.message and outcome.to_json()["queued"] is True
        assert _queued(world, agent)["conversationId"] == store.conversation_id
        assert _drain(world, agent) == (0, [])  # still held: put back for the holder
        assert _queued(world, agent)["trigger"] == "compaction-event"
    started, seen = _drain(world, agent)  # what the holder does after releasing
    assert started == 1 and [(o.status, o.trigger) for o in seen] == [
        ("merged", "compaction-event")
    ]
    assert _queued(world, agent) is None


def test_only_the_latest_queued_launch_is_kept(world, agent, store, other):
    _lasting(store, world.clock)
    _lasting(other, world.clock, "今天我们决定以后一律用 pnpm")
    with acquire_lease(world.home, agent.id, HOLDER, world.clock):
        launch_automatic(world, agent, store, "compaction-event")
        launch_automatic(world, agent, other, "compaction-event")
    started, seen = _drain(world, agent)
    assert started == 1 and seen[0].conversation_id == other.conversation_id
    assert read_reflection_state(store).reflected_through_message_id is None


@pytest.mark.parametrize(("turns", "runs"), [(1, 0), (25, 1)], ids=["below", "reached"])
def test_a_queued_step_count_launch_rechecks_its_threshold(world, agent, store, turns, runs):
    for n in range(turns):
        add_turn(store, world.clock, f"turn {n}")
    put_queued_launch(
        world.home, agent.id, QueuedLaunch("step-count", store.conversation_id, "t", 1)
    )
    started, seen = _drain(world, agent)
    assert (started, len(seen)) == (runs, runs)
    assert _queued(world, agent) is None  # dropped when not due any more


def test_a_queued_compaction_launch_always_runs(world, agent, store):
    _lasting(store, world.clock)  # one step: far below the default 25
    put_queued_launch(
        world.home, agent.id, QueuedLaunch("compaction-event", store.conversation_id, "t", 1)
    )
    started, seen = _drain(world, agent)
    assert started == 1 and seen[0].status == "merged"


def test_a_launch_during_a_run_is_queued_and_runs_after_it(world, agent, store, other):
    """The in-process version of two launches at once: one runs, one queued, both done."""
    _lasting(store, world.clock)
    _lasting(other, world.clock, "今天我们决定以后一律用 pnpm")
    during: list[object] = []

    def second_launch():
        during.append(launch_automatic(world, agent, other, "compaction-event"))

    provider = SideEffectProvider(MockProvider(), {1: second_launch})
    first = launch_automatic(
        world, agent, store, "step-count", options=LaunchOptions(provider=provider)
    )
    assert first.status == "merged"
    assert isinstance(during[0], Queued) and during[0].conversation_id == other.conversation_id
    started, seen = _drain(world, agent)
    assert started == 1 and (seen[0].status, seen[0].conversation_id) == (
        "merged",
        other.conversation_id,
    )
    triggers = sorted(r.trigger for r in list_run_records(world.home, agent.id))
    assert triggers == ["compaction-event", "step-count"]


def test_a_queued_launch_for_a_deleted_conversation_is_dropped(world, agent):
    put_queued_launch(world.home, agent.id, QueuedLaunch("compaction-event", "conv-gone", "t", 1))
    assert _drain(world, agent) == (0, [])


def test_an_unreadable_queue_file_is_dropped_with_a_warning(world, agent, caplog):
    path = world.home.reflection_queue_file(agent.id)
    path.write_text('{"schemaVersion": 1, "trigger": "sometimes"}')
    with caplog.at_level(logging.WARNING, logger="mini_letta"):
        assert take_queued_launch(world.home, agent.id, world.clock) is None
    assert "unreadable queued reflection launch" in caplog.text
    assert not path.exists() and list(path.parent.glob(path.name + ".corrupt-*"))


# ----- failures: counted, backed off, reported once ----------------------------------------------


def test_a_failing_run_is_reported_once_per_streak(world, agent, store):
    _lasting(store, world.clock)
    broken = LaunchOptions(provider=ScriptedProvider([TransientError("overloaded")]))
    first = launch_automatic(world, agent, store, "step-count", options=broken)
    assert (first.status, first.consecutive_failures, first.worth_reporting) == ("failed", 1, True)
    broken = LaunchOptions(provider=ScriptedProvider([TransientError("still overloaded")]))
    second = launch_automatic(world, agent, store, "step-count", options=broken)
    assert (second.consecutive_failures, second.worth_reporting) == (2, False)
    fixed = launch_automatic(world, agent, store, "step-count")
    assert (fixed.status, fixed.consecutive_failures, fixed.worth_reporting) == ("merged", 0, True)


def test_a_dirty_memory_skip_counts_as_a_failure_and_backs_off(world, agent, store):
    for n in range(3):
        add_turn(store, world.clock, f"turn {n}")
    (world.home.memory_dir(agent.id) / "draft.md").write_text("mine")
    first = launch_automatic(world, agent, store, "step-count")
    assert (first.skip_reason, first.consecutive_failures, first.worth_reporting) == (
        "parent_dirty",
        1,
        True,
    )
    step3 = ReflectionSettings("step-count", 3)
    decision = decide_after_turn(world, agent, store, platform="linux", settings=step3)
    assert decision.reason == "backing_off"
    world.clock.advance(3600)
    second = launch_automatic(world, agent, store, "step-count")
    assert (second.consecutive_failures, second.worth_reporting) == (2, False)


def test_a_model_that_cannot_be_used_is_an_error_skip_not_an_exception(world, store):
    agent = new_agent(world, name="remote", model="openai/gpt-test")
    store = resolve_conversation(world, agent, None)
    _lasting(store, world.clock)
    outcome = launch_automatic(world, agent, store, "compaction-event")
    assert (outcome.skip_reason, outcome.trigger, outcome.consecutive_failures) == (
        "error",
        "compaction-event",
        1,
    )
    assert outcome.message.startswith("The reflection could not start (")


def test_busy_and_no_payload_are_not_failures(world, agent, store):
    outcome = launch_automatic(world, agent, store, "compaction-event")
    assert outcome.skip_reason == "no_payload" and outcome.consecutive_failures == 0
    assert read_reflection_state(store).consecutive_failures == 0


# ----- the outbox --------------------------------------------------------------------------------


def _outcome(n: int, **fields) -> ReflectionOutcome:
    return ReflectionOutcome(
        message=f"Merged {n} reflection commit(s).",
        status="merged",
        run_id=f"2026100816065{n}-0000000{n}",
        trigger="step-count",
        commit_count=n,
        **fields,
    )


def test_the_outbox_gives_each_outcome_once_in_posting_order(world, agent):
    for n in (1, 2, 3):
        post_outcome(world.home, agent.id, _outcome(n), world.clock)  # the clock stands still
    assert [o.commit_count for o in take_outcomes(world.home, agent.id, world.clock)] == [1, 2, 3]
    assert take_outcomes(world.home, agent.id, world.clock) == []


def test_an_outcome_survives_the_round_trip(world, agent):
    outcome = _outcome(2, conversation_id="conv-1", merge_commit="abc", consecutive_failures=0)
    post_outcome(world.home, agent.id, outcome, world.clock)
    (back,) = take_outcomes(world.home, agent.id, world.clock)
    assert back == outcome


def test_repeats_of_a_failure_streak_are_not_posted(world, agent):
    failed = ReflectionOutcome("x", status="failed", consecutive_failures=2)
    post_automatic_outcome(world.home, agent.id, failed, clock=world.clock)
    assert take_outcomes(world.home, agent.id, world.clock) == []


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("{torn", id="torn"),
        pytest.param('{"schemaVersion": 1, "outcome": {"message": "m"}}', id="neither"),
        pytest.param('{"schemaVersion": 1, "outcome": {"message": "m", "status": "won"}}', id="st"),
        pytest.param('{"schemaVersion": 9, "outcome": {}}', id="version"),
        pytest.param('{"schemaVersion": 1, "outcome": []}', id="not-object"),
    ],
)
def test_an_unreadable_outcome_is_moved_aside(world, agent, content, caplog):
    post_outcome(world.home, agent.id, _outcome(1), world.clock)
    folder = world.home.reflection_outbox_dir(agent.id)
    (folder / "00000002-bad.json").write_text(content)
    post_outcome(world.home, agent.id, _outcome(3), world.clock)
    with caplog.at_level(logging.WARNING, logger="mini_letta"):
        taken = take_outcomes(world.home, agent.id, world.clock)
    assert [o.commit_count for o in taken] == [1, 3]
    assert "unreadable reflection outcome" in caplog.text
    assert [p.name for p in folder.iterdir()][0].startswith("00000002-bad.json.corrupt-")


def test_an_empty_outbox_creates_nothing(world, agent):
    assert take_outcomes(world.home, agent.id, world.clock) == []
    assert not world.home.reflection_outbox_dir(agent.id).exists()
