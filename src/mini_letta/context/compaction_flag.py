"""compaction-event.json: the compaction flag, the one record of a conversation's last compaction.

Compaction raises it (`pending: true`) after moving the context pointer; the post-turn
reflection decision lowers it (`pending: false`, the other fields kept) at the next turn that
ends normally. This module is its only reader and writer. Lowering happens under the
conversation lock, so a compaction in another process is never overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypedDict

from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError, LockTimeoutError
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.storage.fields import optional_int, optional_str

FLAG_SCHEMA_VERSION = 1
LOWER_LOCK_TIMEOUT = 5.0  # a turn in progress elsewhere: leave the flag for the next turn end


class CompactionFlagJson(TypedDict, total=False):
    schemaVersion: int
    pending: bool
    compactedAt: str
    summaryMessageId: str
    tokensBefore: int
    tokensAfter: int
    trigger: str
    messagesCompacted: int


@dataclass(frozen=True, slots=True)
class CompactionFlag:
    pending: bool
    summary_message_id: str | None = None
    compacted_at: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    trigger: str | None = None
    messages_compacted: int | None = None

    def to_json(self) -> CompactionFlagJson:
        data: CompactionFlagJson = {"schemaVersion": FLAG_SCHEMA_VERSION, "pending": self.pending}
        if self.compacted_at is not None:
            data["compactedAt"] = self.compacted_at
        if self.summary_message_id is not None:
            data["summaryMessageId"] = self.summary_message_id
        if self.tokens_before is not None:
            data["tokensBefore"] = self.tokens_before
        if self.tokens_after is not None:
            data["tokensAfter"] = self.tokens_after
        if self.trigger is not None:
            data["trigger"] = self.trigger
        if self.messages_compacted is not None:
            data["messagesCompacted"] = self.messages_compacted
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CompactionFlag:
        return cls(
            pending=data.get("pending") is True,
            summary_message_id=optional_str(data, "summaryMessageId"),
            compacted_at=optional_str(data, "compactedAt"),
            tokens_before=optional_int(data, "tokensBefore"),
            tokens_after=optional_int(data, "tokensAfter"),
            trigger=optional_str(data, "trigger"),
            messages_compacted=optional_int(data, "messagesCompacted"),
        )


def load_compaction_flag(store: ConversationStore) -> CompactionFlag | None:
    """The flag, or None before the first compaction; CorruptFileError names a bad file."""
    path = store.files.compaction_flag
    data = load_json(path)
    if data is None:
        return None
    try:
        return CompactionFlag.from_json(data)
    except ValueError as exc:
        raise CorruptFileError(path, str(exc)) from exc


def save_compaction_flag(store: ConversationStore, flag: CompactionFlag) -> None:
    save_json(store.files.compaction_flag, flag.to_json())


def lower_compaction_flag(store: ConversationStore) -> bool:
    """Set a pending flag to false, keeping its other fields; True if it was pending.

    Cheap when nothing is pending (one small read). If a turn elsewhere holds the conversation
    lock for long, the flag stays pending for the next turn end.
    """
    flag = load_compaction_flag(store)
    if flag is None or not flag.pending:
        return False
    try:
        with store.lock(timeout=LOWER_LOCK_TIMEOUT):
            flag = load_compaction_flag(store)
            if flag is None or not flag.pending:
                return False
            save_compaction_flag(store, replace(flag, pending=False))
    except LockTimeoutError:
        return False
    return True
