"""compaction-event.json: the compaction flag, the one record of a conversation's last compaction.

Compaction raises it (`pending: true`) after moving the context pointer; the post-turn
reflection decision lowers it (`pending: false`, the other fields kept) at the next turn that
ends normally. This module is its only reader and writer. Lowering happens under the
conversation lock, so a compaction in another process is never overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from mini_letta import log
from mini_letta.clock import Clock, SystemClock
from mini_letta.conversations.messages import Message
from mini_letta.conversations.repair import find_last_summary
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError, LockTimeoutError
from mini_letta.storage.atomic import load_json, quarantine_file, save_json
from mini_letta.storage.fields import optional_int, optional_str
from mini_letta.structs import Struct, replace

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


class CompactionFlag(Struct, frozen=True):
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


def load_compaction_flag(
    store: ConversationStore, *, clock: Clock | None = None
) -> CompactionFlag | None:
    """The flag, or None before the first compaction; a corrupt one is repaired first."""
    try:
        return _load(store)
    except CorruptFileError:
        try:
            repair_compaction_flag(store, clock or SystemClock())
        except LockTimeoutError:  # a turn elsewhere holds the conversation: it will repair it
            return None
        return _load(store)


def repair_compaction_flag(store: ConversationStore, clock: Clock) -> Path | None:
    """Keep a corrupt flag aside as `<name>.corrupt-<timestamp>` and rebuild it from the log.

    The flag is derived data, so this is safe to do unasked. The rebuilt flag names the log's
    last summary and is not pending (at rest it almost never is: the turn that compacted lowers
    it), so at worst one compaction-triggered reflection is skipped. Returns where the bad copy
    went, or None when the flag was readable."""
    path = store.files.compaction_flag
    with store.lock(timeout=LOWER_LOCK_TIMEOUT):
        try:
            _load(store)
            return None  # readable (perhaps repaired by another process meanwhile)
        except CorruptFileError as exc:
            detail = exc.detail
        summary = find_last_summary(store)
        moved = quarantine_file(path, clock.now())
        if summary is not None and summary.compaction is not None:
            save_compaction_flag(store, build_compaction_flag(summary, pending=False))
    log.warning(
        "%s was corrupt (%s); kept it as %s and rebuilt it from the log", path, detail, moved.name
    )
    return moved


def build_compaction_flag(summary: Message, *, pending: bool) -> CompactionFlag:
    """The flag a compaction summary raises."""
    info = summary.compaction
    if info is None:
        raise ValueError(f"{summary.id} is not a compaction summary")
    return CompactionFlag(
        pending=pending,
        summary_message_id=summary.id,
        compacted_at=summary.created_at,
        tokens_before=info.tokens_before,
        tokens_after=info.tokens_after,
        trigger=info.trigger,
        messages_compacted=info.messages_compacted,
    )


def _load(store: ConversationStore) -> CompactionFlag | None:
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
