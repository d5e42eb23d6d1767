"""AutoReflection: the post-turn policy with an injected spawner and sink, and the drain rule."""

from __future__ import annotations

import pytest

from mini_letta.reflection.policy.launcher import QueuedLaunch, drained_after, put_queued_launch
from mini_letta.reflection.policy.session import AutoReflection, SpawnRequest, choose_mode
from mini_letta.reflection.policy.trigger import BackgroundLaunch
from mini_letta.reflection.state.outbox import post_outcome
from mini_letta.reflection.state.outcome import ReflectionOutcome
from mini_letta.reflection.state.records import list_run_records
from mini_letta.reflection.state.settings import save_reflection_settings
from mini_letta.settings import update_global_settings
from mini_letta.workspace import resolve_conversation
from support.reflection_kit import add_turn

EVERY_STEP = {"trigger": "step-count", "stepCount": 1}


@pytest.fixture
def due(world, agent, store):
    """A conversation whose next turn end makes a reflection due."""
    save_reflection_settings(world.home, world.cwd, agent, EVERY_STEP, "agent")
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="（mock）我听到了：好的")
    return store


class Spawns:
    """An injected spawner that starts nothing and records what it was asked to run."""

    def __init__(self) -> None:
        self.requests: list[SpawnRequest] = []

    def __call__(self, request: SpawnRequest) -> int:
        self.requests.append(request)
        return 4242


def _queue(world, agent, conversation_id):
    entry = QueuedLaunch("compaction-event", conversation_id, "2026-10-08T16:00:00Z", 1)
    put_queued_launch(world.home, agent.id, entry)


def _queued(world, agent):
    return world.home.reflection_queue_file(agent.id).exists()


def test_foreground_runs_here_delivers_then_drains_the_queue(world, agent, due):
    other = resolve_conversation(world, agent, None, new=True)
    add_turn(other, world.clock, "今天我们决定以后一律用 pnpm")
    delivered: list[object] = []
    reflection = AutoReflection(world, agent.id, due, sink=delivered.append)
    with reflection.after_turn("end_turn") as outcome:
        assert isinstance(outcome, ReflectionOutcome) and outcome.status == "merged"
        assert delivered == [outcome]
        _queue(world, agent, other.conversation_id)  # queued while this process held the lease
        assert _queued(world, agent)  # not drained before the caller has shown the outcome
    assert not _queued(world, agent)
    assert {r.conversation_id for r in list_run_records(world.home, agent.id)} == {
        due.conversation_id,
        other.conversation_id,
    }


def test_nothing_due_launches_nothing_and_leaves_the_queue(world, agent, store):
    _queue(world, agent, store.conversation_id)
    delivered: list[object] = []
    reflection = AutoReflection(world, agent.id, store, sink=delivered.append)
    with reflection.after_turn("end_turn") as outcome:
        assert outcome is None
    assert delivered == [] and _queued(world, agent)  # only a holder or a queuer drains


def test_a_turn_that_did_not_end_normally_never_reflects(world, agent, due):
    reflection = AutoReflection(world, agent.id, due, sink=lambda o: None)
    with reflection.after_turn("max_steps") as outcome:
        assert outcome is None


def test_background_hands_the_run_to_the_spawner_and_reports_the_start(world, agent, due):
    spawns, delivered = Spawns(), []
    reflection = AutoReflection(
        world, agent.id, due, sink=delivered.append, mode="background", spawn=spawns
    )
    with reflection.after_turn("end_turn") as outcome:
        assert isinstance(outcome, BackgroundLaunch) and outcome.pid == 4242
    assert spawns.requests == [SpawnRequest(agent.id, due.conversation_id, "step-count")]
    assert delivered == [outcome]
    assert list_run_records(world.home, agent.id) == []  # nothing ran in this process


def test_watched_spawns_but_leaves_the_line_to_the_watcher(world, agent, due):
    spawns, delivered = Spawns(), []
    reflection = AutoReflection(
        world, agent.id, due, sink=delivered.append, mode="watched", spawn=spawns
    )
    with reflection.after_turn("end_turn") as outcome:
        assert isinstance(outcome, BackgroundLaunch)
    assert len(spawns.requests) == 1 and delivered == []


def test_detached_modes_need_a_spawner(world, agent, store):
    with pytest.raises(ValueError, match="spawner"):
        AutoReflection(world, agent.id, store, sink=lambda o: None, mode="background")


def test_waiting_outcomes_are_delivered_once(world, agent, store):
    waiting = ReflectionOutcome("done elsewhere", skip_reason="no_payload")
    post_outcome(world.home, agent.id, waiting, world.clock)
    first: list[object] = []
    second: list[object] = []
    AutoReflection(world, agent.id, store, sink=first.append).deliver_waiting()
    AutoReflection(world, agent.id, store, sink=second.append).deliver_waiting()
    assert [o.message for o in first] == ["done elsewhere"] and second == []


@pytest.mark.parametrize(
    ("background", "watched", "configured", "mode"),
    [
        (False, False, None, "foreground"),
        (False, False, "background", "background"),
        (True, False, None, "background"),
        (True, True, None, "watched"),
        (False, True, "foreground", "watched"),
    ],
    ids=["default", "settings", "flag", "watched-wins", "watched-over-settings"],
)
def test_choose_mode(world, background, watched, configured, mode):
    if configured:
        update_global_settings(world.home, lambda data: {**data, "reflectionMode": configured})
    assert choose_mode(world, background=background, watched=watched) == mode


def test_drained_after_leaves_the_queue_when_the_launch_is_interrupted(world, agent, store):
    _queue(world, agent, store.conversation_id)
    with pytest.raises(KeyboardInterrupt), drained_after(world, agent.id):
        raise KeyboardInterrupt
    assert _queued(world, agent)


def test_every_failed_automatic_attempt_is_reported_with_its_turn(world):
    """A model that cannot be used fails each attempt; the backoff spaces the attempts, and
    each one still reaches the sink (a failure streak is never retried silently)."""
    from mini_letta.cli.reflection_view import render_outcome_line
    from mini_letta.workspace import new_agent

    agent = new_agent(world, name="remote", model="openai/gpt-test")  # no key in the World
    store = resolve_conversation(world, agent, None)
    save_reflection_settings(world.home, world.cwd, agent, EVERY_STEP, "agent")
    delivered: list[ReflectionOutcome] = []
    reflection = AutoReflection(world, agent.id, store, sink=delivered.append)
    for attempt in (1, 2):
        for n in range(2):  # one failure doubles the steps a step-count launch needs
            add_turn(store, world.clock, f"turn {attempt}.{n}")
        with reflection.after_turn("end_turn") as outcome:
            assert isinstance(outcome, ReflectionOutcome) and not outcome.ok
        assert [o.consecutive_failures for o in delivered] == list(range(1, attempt + 1))
        world.clock.advance(3600)  # past the retry delay
    line = render_outcome_line(delivered[-1])
    assert line.startswith("  ☾ reflection skipped: error — ") and "2 failures in a row" in line
