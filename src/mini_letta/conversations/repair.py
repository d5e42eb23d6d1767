"""Rebuild a conversation's record from its log, which is the source of truth.

conversation.json holds what the log can tell again: the title is the first user message, the
times are the first and last messages', and the in-context view starts where the last
compaction summary says. A corrupt record is kept aside as `<name>.corrupt-<timestamp>`, never
deleted. Keys only the old record knew (`lastTurn`, usage totals, the pinned system prompt,
which is then compiled afresh as for a new conversation) are lost with it.
"""

from __future__ import annotations

from pathlib import Path

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.records import ContextPointer, ConversationRecord, make_title
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError
from mini_letta.storage.atomic import quarantine_file


def repair_record(store: ConversationStore, clock: Clock) -> Path | None:
    """Rebuild a corrupt conversation.json (hold `store.lock()`); where the bad copy went, or
    None when the record was readable and nothing changed."""
    try:
        store.load_record()
        return None
    except CorruptFileError:
        pass
    record = rebuild_record(store, clock)
    moved = quarantine_file(store.record_path, clock.now())
    store.save_record(record)
    return moved


def rebuild_record(store: ConversationStore, clock: Clock) -> ConversationRecord:
    """The record the log implies (an empty log gives an untitled conversation made now)."""
    now = format_timestamp(clock.now())
    first = next((m for _, m in store.iter_from(0)), None)
    title = next((m.content for _, m in store.iter_from(0) if m.role == "user"), "")
    last = store.tail(1)
    summary = find_last_summary(store)
    return ConversationRecord(
        id=store.conversation_id,
        agent_id=store.agent_id,
        title=make_title(title),
        created_at=first.created_at if first else now,
        updated_at=last[0][1].created_at if last else now,
        context=ContextPointer.after(summary) if summary else ContextPointer(),
    )


def find_last_summary(store: ConversationStore) -> Message | None:
    """The newest compaction summary in the log (walks back from the end)."""
    for _, message in store.iter_reverse():
        if message.role == "summary" and message.compaction is not None:
            return message
    return None
