"""Steps (2) and (3) of a compaction, and settling them after a crash.

After its summary reached the log (1), a compaction moves conversation.json's `context` past the
summary (2) and raises the compaction flag (3). A crash between them leaves a view the reader
already derives from the log; the next turn calls `settle_compaction` to write (2) and (3). Kept
apart from context/compaction.py so that check loads neither the summariser nor the planner.
"""

from __future__ import annotations

from mini_letta.context.builder import ContextView
from mini_letta.context.compaction_flag import (
    build_compaction_flag,
    load_compaction_flag,
    save_compaction_flag,
)
from mini_letta.conversations.messages import Message
from mini_letta.conversations.records import ContextPointer
from mini_letta.conversations.store import ConversationStore


def record_compaction(store: ConversationStore, summary: Message) -> None:
    """Move the context pointer past `summary` (2) and raise the flag (3)."""
    record = store.load_record()
    pointer = ContextPointer.after(summary)
    store.save_record(record.with_updates(context=pointer, updated_at=summary.created_at))
    save_compaction_flag(store, build_compaction_flag(summary, pending=True))


def settle_compaction(store: ConversationStore, view: ContextView) -> bool:
    """Finish a compaction a crash interrupted after its summary reached the log.

    True when the pointer had to be moved (and the flag raised); cheap when nothing is due.
    """
    summary = view.summary
    if summary is None or summary.compaction is None:
        return False
    if view.record.context.summary_message_id == summary.id:
        flag = load_compaction_flag(store)
        if flag is not None and flag.summary_message_id == summary.id:
            return False
        # Killed between moving the pointer (2) and raising the flag (3): write both again.
    record_compaction(store, summary)
    return True
