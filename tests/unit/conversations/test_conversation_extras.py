"""conversation.json's extras: each key declared once (conversations/records.py `EXTRAS`) as a
typed field; unknown keys survive a round trip, a mis-typed extra is dropped, not fatal."""

from __future__ import annotations

from pathlib import Path

from mini_letta.conversations.records import EXTRAS, ConversationRecord

BASE = {"id": "conv-1", "agentId": "agent-1", "createdAt": "2026-01-01T00:00:00Z"}


def test_every_extra_is_a_field_and_round_trips():
    data = {**BASE, **{key: {"k": key} for key in EXTRAS}, "futureKey": [1, 2]}
    record = ConversationRecord.from_json(data, Path("conversation.json"))
    for key, (name, _) in EXTRAS.items():
        assert getattr(record, name) == {"k": key}
    assert record.extra == {"futureKey": [1, 2]}
    again = record.to_json()
    assert {key: again[key] for key in (*EXTRAS, "futureKey")} == {
        **{key: {"k": key} for key in EXTRAS},
        "futureKey": [1, 2],
    }


def test_absent_extras_are_not_written_and_a_mistyped_one_is_dropped():
    record = ConversationRecord.from_json({**BASE, "lastTurn": "oops"}, Path("c.json"))
    assert record.last_turn is None
    assert not set(EXTRAS) & set(record.to_json())
