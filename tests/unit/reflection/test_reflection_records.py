"""Run records: round trip, listing, crashed runs, bad files and bad ids."""

from __future__ import annotations

import pytest

from mini_letta.errors import CorruptFileError, NotFoundError
from mini_letta.reflection.state.records import (
    RunRecord,
    SliceInfo,
    find_consumed_watermark,
    list_run_records,
    load_run_record,
    mark_interrupted,
    save_run_record,
)

AGENT = "agent-records"


def _record(run_id: str, status: str = "merged", **changes) -> RunRecord:
    base = RunRecord(
        run_id=run_id,
        agent_id=AGENT,
        trigger="manual",
        conversation_id="conv-1",
        status=status,
        started_at="2026-10-08T16:06:58.000Z",
        slices=(SliceInfo("conv-1", 0, 6, "msg-a", "msg-f", 6, payload_path="/p.json"),),
        watermark_after={"conv-1": {"messageId": "msg-f", "line": 5}},
    )
    return base.with_updates(**changes)


def test_round_trip(home):
    record = _record(
        "20261008160658-c0ef7940", commit_count=1, usage={"inputTokens": 9, "outputTokens": 3}
    )
    save_run_record(home, record)
    assert load_run_record(home, AGENT, "20261008160658-c0ef7940") == record
    data = record.to_json()
    assert data["schemaVersion"] == 1 and data["slices"][0]["endSnapshotLine"] == 6


def test_list_is_newest_first_and_ignores_other_files(home):
    for run_id in ("20261008160658-00000001", "20261009160658-00000002"):
        save_run_record(home, _record(run_id))
    (home.reflections_dir(AGENT) / "notes.json").write_text("{}")
    assert [r.run_id for r in list_run_records(home, AGENT)] == [
        "20261009160658-00000002",
        "20261008160658-00000001",
    ]


def test_a_corrupt_record_is_an_error_naming_it(home):
    save_run_record(home, _record("20261008160658-00000001"))
    path = home.reflection_record_file(AGENT, "20261008160658-00000001")
    path.write_text('{"schemaVersion": 1, "runId": 7}')
    with pytest.raises(CorruptFileError) as err:
        list_run_records(home, AGENT)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("run_id", ["nope", "../../etc/passwd", "20261008160658-ZZZZZZZZ"])
def test_bad_run_ids_are_not_found(home, run_id):
    with pytest.raises(NotFoundError, match="not a reflection run id"):
        load_run_record(home, AGENT, run_id)


def test_unknown_run_id_is_not_found(home):
    with pytest.raises(NotFoundError, match="reflections list"):
        load_run_record(home, AGENT, "20261008160658-00000009")


def test_a_crashed_run_is_marked_interrupted(home, clock):
    save_run_record(home, _record("20261008160658-00000001", status="running"))
    mark_interrupted(home, AGENT, "20261008160658-00000001", clock)
    record = load_run_record(home, AGENT, "20261008160658-00000001")
    assert record.status == "interrupted" and record.finished_at is not None
    mark_interrupted(home, AGENT, "20261008160658-00000404", clock)  # no record: nothing to do


def test_consumed_watermark_ignores_runs_that_did_not_consume(home):
    save_run_record(home, _record("20261008160658-00000001", status="merge_conflict"))
    assert find_consumed_watermark(home, AGENT, "conv-1") is None
    save_run_record(home, _record("20261008160659-00000002", status="no_changes"))
    found = find_consumed_watermark(home, AGENT, "conv-1")
    assert (found.message_id, found.line, found.status) == ("msg-f", 5, "no_changes")
    assert find_consumed_watermark(home, AGENT, "conv-other") is None
