"""The watermark: lookup, the unreflected slice, step counts, monotonicity, corrupt files."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import CorruptFileError
from mini_letta.reflection.state.records import RunRecord, save_run_record
from mini_letta.reflection.state.watermark import (
    ReflectionState,
    Watermark,
    advance_watermark,
    locate_watermark,
    read_reflection_state,
    save_reflection_state,
    steps_since_last_reflection,
    unreflected_messages,
    update_reflection_state,
    with_step_counters,
)
from mini_letta.structs import replace
from support.reflection_kit import add_turn, message, new_store


def _at(store, line: int) -> ReflectionState:
    found = store.at_line(line)
    return ReflectionState(reflected_through_message_id=found.id, reflected_through_line=line)


def test_no_state_file_means_nothing_reflected_and_reading_creates_nothing(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "hello")
    assert read_reflection_state(store) == ReflectionState()
    assert not store.files.reflection_state.exists()
    assert [line for line, _ in unreflected_messages(store)] == [0, 1]


def test_state_file_has_exactly_the_spec_fields(home, clock):
    store = new_store(home, clock)
    save_reflection_state(store, ReflectionState())
    data = json.loads(store.files.reflection_state.read_text())
    assert set(data) == {
        "schemaVersion",
        "reflectedThroughMessageId",
        "reflectedThroughLine",
        "totalCompletedSteps",
        "reflectedCompletedSteps",
        "stepsSinceLastSuccessfulReflection",
        "lastReflectionStartedAt",
        "lastReflectionSucceededAt",
        "lastReflectionStatus",
        "consecutiveFailures",
        "countedLines",  # the log lines the total covers, so settlements carry the count
    }
    assert read_reflection_state(store) == ReflectionState()


def test_unreflected_starts_after_the_watermark(home, clock):
    store = new_store(home, clock)
    for text in ("one", "two", "three"):
        add_turn(store, clock, text)
    slice_ = unreflected_messages(store, _at(store, 1))
    assert slice_.start_line == 2
    assert [m.content for _, m in slice_] == ["two", "ok: two", "three", "ok: three"]
    assert not slice_.watermark_lost


def test_snapshot_boundary_excludes_later_messages(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    boundary = store.count()
    add_turn(store, clock, "appended during the run")
    lines = [line for line, _ in unreflected_messages(store, stop_line=boundary)]
    assert lines == [0, 1]


def test_wrong_line_hint_falls_back_to_the_id(home, clock):
    store = new_store(home, clock)
    for text in ("one", "two"):
        add_turn(store, clock, text)
    state = replace(_at(store, 1), reflected_through_line=3)
    assert locate_watermark(store, state) == Watermark(1, store.at_line(1).id)


def test_an_id_the_log_no_longer_has_means_replay_and_is_reported(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    state = ReflectionState(reflected_through_message_id="msg-gone", reflected_through_line=1)
    slice_ = unreflected_messages(store, state)
    assert slice_.watermark_lost
    assert slice_.start_line == 0
    assert [line for line, _ in slice_] == [0, 1]


def test_deleting_the_id_by_hand_makes_everything_unreflected(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    add_turn(store, clock, "two")
    save_reflection_state(store, _at(store, 1))
    data = json.loads(store.files.reflection_state.read_text())
    del data["reflectedThroughMessageId"]
    store.files.reflection_state.write_text(json.dumps(data))
    state = read_reflection_state(store)
    slice_ = unreflected_messages(store, state)
    assert slice_.start_line == 0 and not slice_.watermark_lost
    assert steps_since_last_reflection(store, state) == 2


def test_each_assistant_message_is_one_step_tool_call_only_ones_too(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "look at x.py", tools=2)  # 2 tool-call-only steps + the answer
    add_turn(store, clock, "thanks")
    assert steps_since_last_reflection(store) == 4
    assert steps_since_last_reflection(store, _at(store, 5)) == 1


def test_step_count_stops_at_the_limit(home, clock):
    store = new_store(home, clock)
    for n in range(10):
        add_turn(store, clock, f"m{n}")
    assert steps_since_last_reflection(store, limit=3) == 3
    assert steps_since_last_reflection(store, limit=50) == 10


def test_watermark_never_moves_backwards(home, clock):
    store = new_store(home, clock)
    for text in ("one", "two"):
        add_turn(store, clock, text)
    state = _at(store, 3)
    current = locate_watermark(store, state)
    older = Watermark(1, store.at_line(1).id)
    after = advance_watermark(state, current, older, reflected_steps=1, succeeded_at="t")
    assert after.reflected_through_line == 3
    assert after.reflected_through_message_id == state.reflected_through_message_id
    newer = Watermark(3, store.at_line(3).id)
    same = advance_watermark(state, current, newer, reflected_steps=2, succeeded_at="t")
    assert same.reflected_through_line == 3


def test_watermark_advances_forward(home, clock):
    store = new_store(home, clock)
    for text in ("one", "two"):
        add_turn(store, clock, text)
    state = _at(store, 1)
    new = Watermark(3, store.at_line(3).id)
    after = advance_watermark(
        state, locate_watermark(store, state), new, reflected_steps=2, succeeded_at="t"
    )
    assert (after.reflected_through_line, after.reflected_completed_steps) == (3, 2)
    assert with_step_counters(after, 0).total_completed_steps == 2


def test_update_is_read_modify_write(home, clock):
    store = new_store(home, clock)
    update_reflection_state(store, lambda s: replace(s, consecutive_failures=2))
    update_reflection_state(
        store, lambda s: replace(s, consecutive_failures=s.consecutive_failures + 1)
    )
    assert read_reflection_state(store).consecutive_failures == 3


def _consumed_record(store, line: int, run_id: str = "20261008160658-c0ef7940") -> None:
    mark = store.at_line(line)
    save_run_record(
        store.home,
        RunRecord(
            run_id=run_id,
            agent_id=store.agent_id,
            trigger="manual",
            conversation_id=store.conversation_id,
            status="merged",
            started_at="2026-10-08T16:06:58.000Z",
            watermark_after={store.conversation_id: {"messageId": mark.id, "line": line}},
        ),
    )


CORRUPT = [
    pytest.param(b"{not json", id="invalid-json"),
    pytest.param(b"", id="empty"),
    pytest.param(b'{"schemaVersion": 1, "reflectedThroughLine": "three"}', id="bad-field"),
    pytest.param(b'["a list"]', id="not-an-object"),
    pytest.param(b'{"schemaVersion": 99}', id="unknown-schema"),
]


@pytest.mark.parametrize("raw", CORRUPT)
def test_corrupt_state_is_kept_aside_and_rebuilt_from_run_records(home, clock, raw):
    store = new_store(home, clock)
    for text in ("one", "two", "three"):
        add_turn(store, clock, text)
    _consumed_record(store, 3)
    store.files.reflection_state.write_bytes(raw)
    state = read_reflection_state(store, clock=clock)
    assert state.reflected_through_message_id == store.at_line(3).id
    assert state.reflected_through_line == 3
    assert (state.reflected_completed_steps, state.steps_since_last_successful_reflection) == (2, 1)
    assert state.total_completed_steps == 3
    kept = list(store.dir.glob("reflection-state.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == raw
    assert read_reflection_state(store) == state  # the rebuilt file was saved


def test_corrupt_state_without_records_rebuilds_as_nothing_reflected(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    store.files.reflection_state.write_text("{")
    state = read_reflection_state(store, clock=clock)
    assert state.reflected_through_message_id is None
    assert state.steps_since_last_successful_reflection == 1


def test_corrupt_state_with_an_unreadable_record_is_a_clear_error(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    _consumed_record(store, 1)
    record = home.reflections_dir(store.agent_id) / "20261008160700-deadbeef.json"
    record.write_text("{torn")
    store.files.reflection_state.write_text("{")
    with pytest.raises(CorruptFileError) as err:
        read_reflection_state(store, clock=clock)
    text = str(err.value)
    assert (
        "reflection-state.json" in text and "run records cannot tell" in text and "\n" not in text
    )
    assert store.files.reflection_state.read_text() == "{"  # left in place for the user to fix


def test_rebuild_takes_the_furthest_consumed_watermark(home, clock):
    store = new_store(home, clock)
    for text in ("one", "two", "three"):
        add_turn(store, clock, text)
    _consumed_record(store, 1, "20261008160658-00000001")
    _consumed_record(store, 5, "20261008160659-00000002")
    store.files.reflection_state.write_text("{")
    assert read_reflection_state(store, clock=clock).reflected_through_line == 5


def test_corrupt_line_in_the_log_is_skipped(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    with open(store.log.path, "ab") as f:
        f.write(b"{broken json line}\n")
    store.append(message(clock, "user", "after"))
    contents = [m.content for _, m in unreflected_messages(store)]
    assert contents == ["one", "ok: one", "after"]
