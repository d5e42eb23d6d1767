"""Rebuilding conversation.json and the compaction flag from the log, in-process."""

from __future__ import annotations

import json

from mini_letta.context.compaction_flag import (
    build_compaction_flag,
    load_compaction_flag,
    save_compaction_flag,
)
from mini_letta.conversations.messages import CompactionInfo
from mini_letta.conversations.records import ContextPointer
from mini_letta.conversations.repair import rebuild_record, repair_record
from mini_letta.structs import replace
from support.reflection_kit import add_turn, message, new_store


def test_rebuild_of_an_empty_conversation_is_untitled(home, clock):
    store = new_store(home, clock)
    record = rebuild_record(store, clock)
    assert (record.id, record.title, record.context) == (
        store.conversation_id,
        "",
        ContextPointer(),
    )


def test_rebuild_takes_title_times_and_the_last_summarys_pointer(home, clock):
    store = new_store(home, clock)
    first = add_turn(store, clock, "  第一个\n问题  ")[0]
    add_turn(store, clock, "two")
    info = CompactionInfo(2, "msg-kept", 2, 100, 40, "manual")
    summary = message(clock, "summary", "概要", compaction=info)
    store.append(summary)
    record = rebuild_record(store, clock)
    assert record.title == "第一个 问题"
    assert record.created_at == first.created_at and record.updated_at == summary.created_at
    assert record.context == ContextPointer(2, "msg-kept", summary.id)


def test_repair_record_leaves_a_good_record_alone(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "hello")
    before = store.record_path.read_bytes()
    assert repair_record(store, clock) is None
    assert store.record_path.read_bytes() == before


def test_repair_record_keeps_the_corrupt_copy(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "hello")
    store.record_path.write_text("[]")
    moved = repair_record(store, clock)
    assert moved is not None and moved.read_text() == "[]"
    assert store.load_record().title == "hello"


def test_a_corrupt_flag_is_rebuilt_from_the_last_summary_not_pending(home, clock, caplog):
    store = new_store(home, clock)
    add_turn(store, clock, "hello")
    summary = message(
        clock, "summary", "概要", compaction=CompactionInfo(0, None, 2, 90, 30, "manual")
    )
    store.append(summary)
    save_compaction_flag(store, build_compaction_flag(summary, pending=True))
    store.files.compaction_flag.write_text('{"schemaVersion": 1, "tokensBefore": "many"}')
    flag = load_compaction_flag(store, clock=clock)
    assert flag == replace(build_compaction_flag(summary, pending=True), pending=False)
    (kept,) = store.dir.glob("compaction-event.json.corrupt-*")
    assert json.loads(kept.read_text())["tokensBefore"] == "many"
    assert any("compaction-event.json was corrupt" in r.getMessage() for r in caplog.records)


def test_a_corrupt_flag_without_any_summary_is_removed(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "hello")
    store.files.compaction_flag.write_text("{torn")
    assert load_compaction_flag(store, clock=clock) is None
    assert not store.files.compaction_flag.exists()
