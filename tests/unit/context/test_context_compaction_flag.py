"""The compaction flag (compaction-event.json): one typed record, raised and lowered."""

from __future__ import annotations

import json

import pytest

from mini_letta.context.compaction_flag import (
    CompactionFlag,
    load_compaction_flag,
    lower_compaction_flag,
    save_compaction_flag,
)
from mini_letta.conversations.registry import create_conversation
from mini_letta.structs import replace

RAISED = CompactionFlag(
    pending=True,
    summary_message_id="msg-1",
    compacted_at="2026-10-08T16:00:00Z",
    tokens_before=900,
    tokens_after=400,
    trigger="before-call",
    messages_compacted=7,
)


@pytest.fixture
def store(home, clock):
    return create_conversation(home, "agent-1", clock)


def test_flag_round_trips_in_its_disk_shape(store):
    save_compaction_flag(store, RAISED)
    assert json.loads(store.files.compaction_flag.read_text()) == {
        "schemaVersion": 1,
        "pending": True,
        "compactedAt": "2026-10-08T16:00:00Z",
        "summaryMessageId": "msg-1",
        "tokensBefore": 900,
        "tokensAfter": 400,
        "trigger": "before-call",
        "messagesCompacted": 7,
    }
    assert load_compaction_flag(store) == RAISED


def test_no_file_is_no_flag_and_lowering_creates_none(store):
    assert load_compaction_flag(store) is None
    assert lower_compaction_flag(store) is False
    assert not store.files.compaction_flag.exists()


def test_lowering_keeps_the_other_fields_and_happens_once(store):
    save_compaction_flag(store, RAISED)
    assert lower_compaction_flag(store) is True
    assert load_compaction_flag(store) == replace(RAISED, pending=False)
    assert lower_compaction_flag(store) is False


def test_a_flag_with_a_wrong_field_is_reported_by_name_kept_aside_and_rebuilt(store, caplog):
    bad = '{"schemaVersion": 1, "pending": true, "tokensBefore": "x"}'
    store.files.compaction_flag.write_text(bad)
    assert load_compaction_flag(store) is None  # no summary in the log: no flag to rebuild
    (warning,) = [r.getMessage() for r in caplog.records if "corrupt" in r.getMessage()]
    assert "compaction-event.json was corrupt (tokensBefore" in warning
    (kept,) = store.dir.glob("compaction-event.json.corrupt-*")
    assert kept.read_text() == bad
