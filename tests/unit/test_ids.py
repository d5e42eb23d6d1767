"""Agent and conversation ids are canonical random (version 4) UUIDs behind their prefix."""

from __future__ import annotations

import uuid

from mini_letta.ids import new_agent_id, new_conversation_id


def test_agent_and_conversation_ids_are_canonical_uuid4() -> None:
    ids = [new_agent_id() for _ in range(200)] + [new_conversation_id() for _ in range(200)]
    for prefixed in ids:
        prefix, _, text = prefixed.partition("-")
        assert prefix in ("agent", "conv")
        parsed = uuid.UUID(text)
        assert str(parsed) == text  # lower-case, 8-4-4-4-12
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert len(set(ids)) == len(ids)


def test_run_ids_sort_by_start_time_within_one_second() -> None:
    """Two mock runs often start in the same second; `reflections list` and the newest-run
    lookup order by id, so the id must carry the milliseconds."""
    from datetime import UTC, datetime, timedelta

    from mini_letta.ids import new_run_id
    from mini_letta.reflection.state.records import is_run_id

    start = datetime(2026, 12, 3, 17, 27, 46, 900_000, tzinfo=UTC)
    moments = [start + timedelta(milliseconds=n) for n in (0, 5, 60, 99, 100, 1_000, 61_000)]
    for _ in range(20):
        ids = [new_run_id(moment) for moment in moments]
        assert sorted(ids) == ids
        assert all(is_run_id(run_id) for run_id in ids)
    assert ids[0].startswith("20261203172746-384")  # 900 ms, then random: the chapter's shape
