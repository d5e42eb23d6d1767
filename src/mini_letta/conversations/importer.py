"""Import a transcript as a conversation, all or nothing, and never twice.

A new conversation is written whole in a staging folder beside the agent's conversations
(messages.jsonl with its index, then conversation.json) and renamed into place in one step,
so a crash or a bad file never leaves half a conversation that `conversations list`, search
or reflection could see. Imports of one agent hold one lock; whatever else is in the staging
folder then is a killed import's leftover, removed before anything is written.

A conversation made by an import records in `importedFrom` the session it came from
(`sourceId`) and how many of its messages are in (`messages`). Importing the session again
finds that conversation and appends only the messages past that count (a grown session's new
turns), in one append; nothing new, nothing written. Each imported message's id ends in a
digest of (session, position), so a kill between the append and the record's update is seen
the next time (the messages are there) and never appended twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.records import ConversationRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.conversations.transcript_base import ImportedMessage
from mini_letta.conversations.transcripts import Transcript
from mini_letta.errors import UnwritableError
from mini_letta.home import Home, ensure_dir
from mini_letta.ids import new_conversation_id
from mini_letta.storage.atomic import fsync_directory, save_json
from mini_letta.storage.jsonl import JsonlLog
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct

TITLE_LIMIT = 80
IMPORT_LOCK_TIMEOUT = 60.0


class ImportSource(Struct, frozen=True):
    transcript: Transcript
    file_name: str
    title: str | None = None


class ImportOutcome(Struct, frozen=True):
    store: ConversationStore
    added: int  # messages written by this import
    total: int  # the session's messages now in the conversation
    created: bool  # a new conversation (else: appended to, or already complete)


class Importer:
    """Imports into one agent's conversations under the agent's import lock (a context
    manager); several transcripts can go through one `Importer` (`import --all`)."""

    def __init__(self, home: Home, agent_id: str, clock: Clock) -> None:
        self.home, self.agent_id, self.clock = home, agent_id, clock
        self.staging = home.import_staging_dir(agent_id)
        self._known: dict[str, str] | None = None
        self._lock: contextlib.ExitStack | None = None

    def __enter__(self) -> Importer:
        stack = contextlib.ExitStack()
        ensure_dir(self.staging)
        stack.enter_context(
            exclusive_lock(
                self.home.import_lock(self.agent_id),
                timeout=IMPORT_LOCK_TIMEOUT,
                what="imports of this agent",
            )
        )
        self._lock = stack
        remove_staging_leftovers(self.staging)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def run(self, source: ImportSource) -> ImportOutcome:
        """Import `source`: a new conversation, or what is new of one imported before."""
        if self._lock is None:
            raise RuntimeError("Importer.run outside its `with` block")
        transcript = source.transcript
        known = self._sources()
        existing = known.get(transcript.source_id)
        if existing is not None:
            store = ConversationStore(self.agent_id, existing, self.home)
            if store.exists():
                return self._append(store, source)
        store = self._create(source)
        known[transcript.source_id] = store.conversation_id
        count = len(transcript.messages)
        return ImportOutcome(store, count, count, True)

    def _sources(self) -> dict[str, str]:
        """sourceId -> conversation id of every conversation an import made (read once)."""
        if self._known is None:
            from mini_letta.conversations.registry import scan_conversations

            records, _ = scan_conversations(self.home, self.agent_id)
            self._known = {}
            for record in sorted(records, key=lambda r: r.created_at):
                source = (record.imported_from or {}).get("sourceId")
                if isinstance(source, str):
                    self._known.setdefault(source, record.id)
        return self._known

    def _create(self, source: ImportSource) -> ConversationStore:
        now = self.clock.now()
        transcript = source.transcript
        messages = _messages(transcript, 0, now)
        conversation_id = new_conversation_id()
        record = ConversationRecord(
            id=conversation_id,
            agent_id=self.agent_id,
            title=_title(source),
            created_at=messages[0].created_at,
            updated_at=max(message.created_at for message in messages),
            imported_from=_imported_from(source, len(messages), len(messages)),
        )
        files = self.home.conversation_files(self.agent_id, conversation_id)
        staging = self.staging / conversation_id
        target = files.dir
        ensure_dir(target.parent)
        try:
            staging.mkdir()
            log = JsonlLog(staging / files.messages.name)
            log.append([message.to_json() for message in messages])
            save_json(staging / files.record.name, record.to_json())
            os.rename(staging, target)
            fsync_directory(target.parent)
        except OSError as exc:
            raise UnwritableError(target, exc.strerror or str(exc)) from exc
        finally:
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(staging)  # after a rename there is nothing left; else, the half
        return ConversationStore(self.agent_id, conversation_id, self.home)

    def _append(self, store: ConversationStore, source: ImportSource) -> ImportOutcome:
        transcript = source.transcript
        with store.lock(timeout=IMPORT_LOCK_TIMEOUT):
            record = store.load_record()
            recorded = _count(record.imported_from, "messages")
            total = len(transcript.messages)
            if total <= recorded:
                return ImportOutcome(store, 0, recorded, False)
            done = _already_in(store, transcript, record.imported_from)
            new = _messages(transcript, done, self.clock.now()) if total > done else []
            if new:
                store.append(new)
            updated = max([record.updated_at, *(m.created_at for m in new)])
            imported = {
                **(record.imported_from or {}),
                **_imported_from(source, max(total, done), store.count()),
            }
            store.save_record(record.with_updates(updated_at=updated, imported_from=imported))
        return ImportOutcome(store, len(new), max(total, done), False)


def remove_staging_leftovers(staging: Path) -> list[str]:
    """Remove what killed imports left in `staging` (the caller holds the import lock, so no
    live import writes there); the names removed."""
    removed: list[str] = []
    try:
        entries = list(staging.iterdir())
    except FileNotFoundError:
        return removed
    for entry in entries:
        with contextlib.suppress(FileNotFoundError):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        removed.append(entry.name)
    return removed


def import_conversation(
    home: Home, agent_id: str, source: ImportSource, clock: Clock
) -> ConversationStore:
    """Import one transcript (see `Importer.run`) and return its conversation."""
    with Importer(home, agent_id, clock) as importer:
        return importer.run(source).store


def _messages(transcript: Transcript, start: int, now: datetime) -> list[Message]:
    return [
        _message(item, transcript.source_id, index, now)
        for index, item in enumerate(transcript.messages[start:], start=start)
    ]


def _message(item: ImportedMessage, source_id: str, index: int, now: datetime) -> Message:
    moment = item.created_at or now
    return Message(
        id=f"msg-{int(moment.timestamp() * 1000):012x}{_digest(source_id, index)}",
        role=item.role,
        content=item.content,
        created_at=format_timestamp(moment),
        tool_calls=item.tool_calls,
        tool_call_id=item.tool_call_id,
        name=item.name,
        is_error=item.is_error,
        stop_reason=item.stop_reason,
    )


def _digest(source_id: str, index: int) -> str:
    """16 hex digits naming (session, position): the tail of an imported message's id."""
    return hashlib.sha256(f"{source_id}\0{index}".encode()).hexdigest()[:16]


def _already_in(
    store: ConversationStore, transcript: Transcript, imported: dict[str, Any] | None
) -> int:
    """How many of the session's messages the conversation holds: the recorded count, and
    past it any the log has by their ids (an import killed before it saved the record). Only
    the log's lines since the last recorded import are read."""
    done = _count(imported, "messages")
    since = min(_count(imported, "logLines"), store.count())
    tails = {message.id[-16:] for _, message in store.iter_from(since)}
    while done < len(transcript.messages) and _digest(transcript.source_id, done) in tails:
        done += 1
    return done


def _count(imported: dict[str, Any] | None, key: str) -> int:
    value = (imported or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _imported_from(source: ImportSource, count: int, log_lines: int) -> dict[str, Any]:
    """`importedFrom`: the session, how many of its messages are in, and the log's length
    then (where a later import looks for messages a killed import appended)."""
    transcript = source.transcript
    return {
        "format": transcript.format,
        "file": source.file_name,
        "sourceId": transcript.source_id,
        "messages": count,
        "logLines": log_lines,
    }


def _title(source: ImportSource) -> str:
    from mini_letta.memory.secrets import redact_secrets

    transcript = source.transcript
    first_user = next((m for m in transcript.messages if m.role == "user"), None)
    text = source.title or transcript.title
    if not text:
        text = first_user.content if first_user else Path(source.file_name).stem
    return " ".join(redact_secrets(text).split())[:TITLE_LIMIT]
