"""The post-turn decision (SPEC §7.2): the chapter's two tests, and the reference checklist."""

from __future__ import annotations

import pytest

from mini_letta.agents.registry import load_agent
from mini_letta.conversations.store import ConversationStore
from mini_letta.loop.events import CompactionEvent, TurnResult
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.policy.trigger import decide_after_turn, maybe_reflect_after_turn
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.settings import ReflectionSettings, save_reflection_settings
from mini_letta.reflection.state.watermark import ReflectionState, save_reflection_state
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.structs import replace
from mini_letta.workspace import new_agent, resolve_conversation
from support.compaction_fakes import CHINESE_TURNS
from support.reflection_kit import add_turn, message

LINUX = "linux"
STEP3 = ReflectionSettings("step-count", 3)
EVENT = ReflectionSettings("compaction-event", 25)
OFF = ReflectionSettings("off", 25)


class Launches:
    """An injected launcher that records each trigger and launches nothing."""

    def __init__(self):
        self.triggers: list[str] = []

    def __call__(self, trigger):
        self.triggers.append(trigger)
        return f"launched {trigger}"


def _turn(setup, text):
    events = list(run_turn(setup, text))
    result = events[-1]
    assert isinstance(result, TurnResult) and result.stop_reason == "end_turn"
    return result, [e for e in events if isinstance(e, CompactionEvent)]


def _pending(store, **extra):
    event = {"schemaVersion": 1, "pending": True, "summaryMessageId": "msg-x", **extra}
    save_json(store.files.compaction_flag, event)


def _decide(world, agent, store, settings, **kwargs):
    kwargs.setdefault("platform", LINUX)
    return decide_after_turn(world, agent, store, settings=settings, **kwargs)


def _maybe(world, agent, store, settings, launch, **kwargs):
    kwargs.setdefault("platform", LINUX)
    return maybe_reflect_after_turn(world, agent, store, settings=settings, launch=launch, **kwargs)


# ----- the chapter's tests (14.6), with the real loop, mock model and git -----------------------


def test_step_count_fires_once_enough_assistant_steps_accumulate(world, agent, store):
    patch = {"trigger": "step-count", "stepCount": 3}  # `sleeptime --trigger step-count --steps 3`
    save_reflection_settings(world.home, world.cwd, agent, patch, "agent")
    agent = load_agent(world.home, agent.id)
    setup = build_turn_setup(world, agent, store, TurnOptions())
    outcomes = []
    for text in ["我更喜欢用 tabs 缩进", "嗯", "好的"]:
        result, _ = _turn(setup, text)
        outcomes.append(
            maybe_reflect_after_turn(
                world, agent, store, platform=LINUX, stop_reason=result.stop_reason
            )
        )
    assert outcomes[:2] == [None, None]
    assert outcomes[2].launched and outcomes[2].status == "merged"
    assert outcomes[2].trigger == "step-count"
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text(encoding="utf-8")
    assert "- Preference: 我更喜欢用 tabs 缩进" in human


def test_compaction_event_default_fires_only_after_a_compaction(world):
    agent = new_agent(world, name="small", context_window=1200)
    store = resolve_conversation(world, agent, None)
    setup = build_turn_setup(world, agent, store, TurnOptions())
    compacted = fired = 0
    before_first = None
    for number, text in enumerate(CHINESE_TURNS):
        result, compactions = _turn(setup, text)
        if compactions and before_first is None:
            before_first = number
        compacted += len(compactions)
        outcome = maybe_reflect_after_turn(
            world, agent, store, platform=LINUX, stop_reason=result.stop_reason
        )
        if outcome is not None:
            fired += 1
            assert outcome.trigger == "compaction-event" and outcome.ok, outcome
        assert (
            not load_json(store.files.compaction_flag)
            or not load_json(store.files.compaction_flag)["pending"]
        )
    assert compacted > 0
    assert fired == compacted  # each compaction triggers exactly one reflection
    assert before_first is not None and before_first >= 3  # several turns fit before the first


# ----- the reference checklist (§6.3 items 41-49, adapted) ---------------------------------------


def test_step_count_at_the_threshold_launches(world, agent, store):
    for n in range(3):
        add_turn(store, world.clock, f"turn {n}")
    launches = Launches()
    assert _maybe(world, agent, store, STEP3, launches) == "launched step-count"
    assert launches.triggers == ["step-count"]


def test_step_count_below_the_threshold_does_not(world, agent, store):
    for n in range(2):
        add_turn(store, world.clock, f"turn {n}")
    launches = Launches()
    assert _maybe(world, agent, store, STEP3, launches) is None
    assert launches.triggers == []
    assert _decide(world, agent, store, STEP3).reason == "below_threshold"


def test_tool_call_only_messages_are_steps_too(world, agent, store):
    add_turn(store, world.clock, "one", tools=2)  # two tool-call steps and the answer
    assert _decide(world, agent, store, STEP3).trigger == "step-count"


def test_step_count_with_a_pending_compaction_consumes_it_and_does_not_launch(world, agent, store):
    add_turn(store, world.clock, "one")
    _pending(store, tokensBefore=900, tokensAfter=400)
    launches = Launches()
    assert _maybe(world, agent, store, STEP3, launches) is None
    event = load_json(store.files.compaction_flag)
    assert event["pending"] is False
    assert (event["tokensBefore"], event["tokensAfter"], event["summaryMessageId"]) == (
        900,
        400,
        "msg-x",
    )  # the other fields are kept
    assert launches.triggers == []


def test_compaction_event_with_the_flag_launches_and_consumes_it(world, agent, store):
    add_turn(store, world.clock, "one")
    _pending(store)
    launches = Launches()
    assert _maybe(world, agent, store, EVENT, launches) == "launched compaction-event"
    assert load_json(store.files.compaction_flag)["pending"] is False
    assert _maybe(world, agent, store, EVENT, launches) is None  # used up
    assert launches.triggers == ["compaction-event"]


def test_compaction_event_without_the_flag_does_nothing(world, agent, store):
    add_turn(store, world.clock, "one")
    assert _decide(world, agent, store, EVENT).reason == "no_compaction"
    assert load_json(store.files.compaction_flag) is None  # nothing was created


def test_off_consumes_the_flag_and_a_later_switch_does_not_fire_for_it(world, agent, store):
    for n in range(10):
        add_turn(store, world.clock, f"turn {n}")
    _pending(store)
    launches = Launches()
    assert _maybe(world, agent, store, OFF, launches) is None
    assert load_json(store.files.compaction_flag)["pending"] is False
    assert _maybe(world, agent, store, EVENT, launches) is None
    assert launches.triggers == []


def test_real_files_fire_after_enough_appends(world, agent, store):
    step2 = ReflectionSettings("step-count", 2)
    launches = Launches()
    assert _maybe(world, agent, store, step2, launches) is None
    add_turn(store, world.clock, "one")
    assert _maybe(world, agent, store, step2, launches) is None
    add_turn(store, world.clock, "two")
    assert _maybe(world, agent, store, step2, launches) == "launched step-count"
    assert launches.triggers == ["step-count"]


@pytest.mark.parametrize("stop", ["error", "max_steps", "interrupted", "tool_use"])
def test_a_turn_that_did_not_end_with_end_turn_counts_for_nothing(world, agent, store, stop):
    for n in range(5):
        add_turn(store, world.clock, f"turn {n}")
    _pending(store)
    launches = Launches()
    for settings in (STEP3, EVENT):
        assert _maybe(world, agent, store, settings, launches, stop_reason=stop) is None
    assert launches.triggers == []
    assert load_json(store.files.compaction_flag)["pending"] is True  # waits for a turn that counts
    assert _maybe(world, agent, store, EVENT, launches) == "launched compaction-event"


def test_a_failed_turn_from_the_loop_launches_nothing(world, agent, store):
    from mini_letta.errors import TransientError
    from support.reflection_kit import ScriptedProvider

    for n in range(3):
        add_turn(store, world.clock, f"turn {n}")
    setup = replace(
        build_turn_setup(world, agent, store, TurnOptions()),
        provider=ScriptedProvider([TransientError("down")]),
    )
    result = list(run_turn(setup, "再来"))[-1]
    assert result.stop_reason == "error"
    launches = Launches()
    assert _maybe(world, agent, store, STEP3, launches, stop_reason=result.stop_reason) is None
    assert launches.triggers == []


# ----- the Windows switch, backoff ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "environ", "launches_expected"),
    [
        pytest.param("win32", {}, False, id="windows-default-off"),
        pytest.param("win32", {"MINI_LETTA_ENABLE_WINDOWS_AUTO_REFLECTION": "1"}, True, id="on"),
        pytest.param(
            "win32", {"MINI_LETTA_ENABLE_WINDOWS_AUTO_REFLECTION": "yes"}, False, id="yes"
        ),
        pytest.param("linux", {}, True, id="linux"),
        pytest.param("darwin", {}, True, id="mac"),
    ],
)
def test_the_windows_switch(world, agent, store, platform, environ, launches_expected):
    world = replace(world, environ=environ)
    for n in range(3):
        add_turn(store, world.clock, f"turn {n}")
    _pending(store)
    decision = _decide(world, agent, store, STEP3, platform=platform)
    assert (decision.trigger is not None) == launches_expected
    assert decision.compaction_consumed  # consumed either way
    if not launches_expected:
        assert decision.reason == "auto_disabled"


def test_manual_reflection_works_with_the_windows_switch_off(world, agent, store):
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进")
    world = replace(world, environ={})
    assert _decide(world, agent, store, STEP3, platform="win32").trigger is None
    outcome = launch_reflection(world, agent, store, LaunchOptions(trigger="manual"))
    assert outcome.status == "merged"


def test_backoff_after_failures_delays_and_raises_the_step_bar(world, agent, store):
    for n in range(3):
        add_turn(store, world.clock, f"turn {n}")
    started = world.clock.now().isoformat().replace("+00:00", "Z")
    save_reflection_state(
        store, ReflectionState(consecutive_failures=1, last_reflection_started_at=started)
    )
    assert _decide(world, agent, store, STEP3).reason == "backing_off"  # 2 minutes after
    world.clock.advance(121)
    assert _decide(world, agent, store, STEP3).reason == "below_threshold"  # needs 3 x 2 now
    for n in range(3):
        add_turn(store, world.clock, f"more {n}")
    assert _decide(world, agent, store, STEP3).trigger == "step-count"


def test_backoff_also_holds_a_compaction_launch(world, agent, store):
    add_turn(store, world.clock, "one")
    started = world.clock.now().isoformat().replace("+00:00", "Z")
    save_reflection_state(
        store, ReflectionState(consecutive_failures=3, last_reflection_started_at=started)
    )
    _pending(store)
    decision = _decide(world, agent, store, EVENT)
    assert (decision.reason, decision.compaction_consumed) == ("backing_off", True)


# ----- cost: the check reads O(stepCount) messages, not the conversation ------------------------


class CountingStore(ConversationStore):
    """A real store that counts the messages its readers pull from the log."""

    read = 0

    def iter_reverse(self):
        for item in super().iter_reverse():
            self.read += 1
            yield item

    def iter_from(self, start=0):
        for item in super().iter_from(start):
            self.read += 1
            yield item

    def all(self):
        raise AssertionError("the post-turn check must not read the whole log")


def test_the_step_check_reads_only_about_step_count_messages(world, agent, store):
    batch = []  # one append: a log this long is not what is measured
    for n in range(400):
        batch.append(message(world.clock, "user", f"turn {n}"))
        batch.append(message(world.clock, "assistant", f"ok: turn {n}"))
    store.append(batch)
    counting = CountingStore(agent.id, store.conversation_id, world.home)
    assert _decide(world, agent, counting, STEP3).trigger == "step-count"
    assert counting.read <= 2 * STEP3.step_count
    line = counting.count() - 3  # the watermark two messages from the end
    mark = counting.at_line(line)
    save_reflection_state(
        counting, ReflectionState(reflected_through_message_id=mark.id, reflected_through_line=line)
    )
    counting.read = 0
    assert _decide(world, agent, counting, STEP3).reason == "below_threshold"
    assert counting.read <= 2 * STEP3.step_count


def test_the_reflection_memory_is_untouched_when_nothing_launches(world, agent, store):
    head = GitRepo(world.home.memory_dir(agent.id)).head_sha()
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进")
    assert maybe_reflect_after_turn(world, agent, store, platform=LINUX, settings=STEP3) is None
    assert GitRepo(world.home.memory_dir(agent.id)).head_sha() == head
    assert not world.home.reflections_dir(agent.id).exists()
