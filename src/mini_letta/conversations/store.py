"""ConversationStore: one conversation's folder — its message log, record and sidecar files.

The log is append-only and indexed (storage.jsonl), so `tail`, `count` and `at_line` cost the
same at 10 or 100,000 messages; only `all()` and `iter_from()` stream, and they are not for the
hot path. Writers that must see a consistent conversation (a turn, a compaction) hold `lock()`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from mini_letta import log
from mini_letta.conversations.messages import Message, Usage
from mini_letta.conversations.records import ConversationRecord
from mini_letta.errors import CorruptFileError, NotFoundError
from mini_letta.home import ConversationFiles, Home
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.storage.jsonl import JsonlLog
from mini_letta.storage.locks import exclusive_lock

TURN_LOCK_TIMEOUT = 300.0


class ConversationStore:
    def __init__(
        self,
        agent_id: str,
        conversation_id: str,
        home: Home,
        files: ConversationFiles | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.conversation_id = conversation_id
        self.home = home
        self.files = files or home.conversation_files(agent_id, conversation_id)
        self.dir = self.files.dir
        self.log = JsonlLog(self.files.messages)

    # -- the record -------------------------------------------------------------------------

    @property
    def record_path(self) -> Path:
        return self.files.record

    def exists(self) -> bool:
        return self.record_path.exists()

    def load_record(self) -> ConversationRecord:
        """The record; a corrupt one is a CorruptFileError that names the repair command."""
        try:
            data = load_json(self.record_path)
            if data is not None:
                return ConversationRecord.from_json(data, self.record_path)
        except CorruptFileError as exc:
            raise CorruptFileError(
                exc.path,
                exc.detail,
                f"`mini-letta conversations repair {self.conversation_id}` rebuilds it from the "
                "log and keeps this copy",
            ) from exc
        raise NotFoundError(
            f"conversation {self.conversation_id} not found for agent {self.agent_id} "
            "(see `mini-letta conversations list`)"
        )

    def save_record(self, record: ConversationRecord) -> None:
        save_json(self.record_path, record.to_json())

    # -- messages ---------------------------------------------------------------------------

    def append(self, messages: Message | Sequence[Message]) -> list[int]:
        """Append durably (fsync) and return the line of each message."""
        batch = [messages] if isinstance(messages, Message) else list(messages)
        return self.log.append([message.to_json() for message in batch])

    def count(self) -> int:
        """Physical lines in the log, including any corrupt ones (line numbers stay stable)."""
        return self.log.count()

    def at_line(self, line: int) -> Message | None:
        if line < 0 or line >= self.log.count():
            return None
        return _decode(self.log.read_line(line), self.log.path, line)

    def tail(self, n: int) -> list[tuple[int, Message]]:
        out: list[tuple[int, Message]] = []
        for line, data in self.log.tail(n):
            message = _decode(data, self.log.path, line)
            if message is not None:
                out.append((line, message))
        return out

    def iter_from(self, start: int = 0) -> Iterator[tuple[int, Message]]:
        for line, data in self.log.iter_from(start):
            message = _decode(data, self.log.path, line)
            if message is not None:
                yield line, message

    def find_ids(self, wanted: set[str], start: int, end: int) -> list[tuple[int, Message]]:
        """The messages with these ids among lines [start, end), in order; only they are
        decoded, and the read stops once all are found."""
        found: list[tuple[int, Message]] = []
        left = set(wanted)
        for line, data in self.log.iter_from(start):
            if line >= end or not left:
                break
            if data is not None and data.get("id") in left:
                message = _decode(data, self.log.path, line)
                if message is not None:
                    found.append((line, message))
                    left.discard(message.id)
        return found

    def iter_reverse(self) -> Iterator[tuple[int, Message]]:
        for line, data in self.log.iter_reverse():
            message = _decode(data, self.log.path, line)
            if message is not None:
                yield line, message

    def all(self) -> Iterator[Message]:
        """Every message in order, streamed (not for the hot path)."""
        for _, message in self.iter_from(0):
            yield message

    def total_usage(self) -> tuple[Usage, int]:
        """Token counts of every model call in the conversation, and how many calls reported
        them: conversation.json `usageTotals` (kept by the turn loop), else summed from the log."""
        kept = _usage_totals(self.load_record().usage_totals)
        return kept if kept is not None else self._usage_from_log()

    def with_turn_usage(
        self, totals: dict[str, Any] | None, usage: Usage, calls: int
    ) -> dict[str, Any]:
        """`usageTotals` with a finished turn's usage added. A conversation from before the
        totals were kept is summed from its log once (the log already holds the turn)."""
        kept = _usage_totals(totals)
        total, count = (kept[0] + usage, kept[1] + calls) if kept else self._usage_from_log()
        return {**total.to_json(), "modelCalls": count}

    def _usage_from_log(self) -> tuple[Usage, int]:
        total, calls = Usage(), 0
        for message in self.all():
            if message.usage is not None:
                total, calls = total + message.usage, calls + 1
        return total, calls

    def by_id(self, message_id: str, hint_line: int | None = None) -> tuple[int, Message] | None:
        """Find a message: O(1) when `hint_line` is right, else a search from the end."""
        if hint_line is not None:
            message = self.at_line(hint_line)
            if message is not None and message.id == message_id:
                return hint_line, message
        for line, message in self.iter_reverse():
            if message.id == message_id:
                return line, message
        return None

    def lock(self, timeout: float = TURN_LOCK_TIMEOUT) -> AbstractContextManager[None]:
        """The cross-process lock that serialises turns and compactions in this conversation."""
        return exclusive_lock(
            self.files.lock, timeout=timeout, what=f"conversation {self.conversation_id}"
        )


def _usage_totals(data: dict[str, Any] | None) -> tuple[Usage, int] | None:
    if not isinstance(data, dict) or not isinstance(data.get("modelCalls"), int):
        return None
    try:
        return Usage.from_json(data), data["modelCalls"]
    except ValueError:
        return None  # unreadable totals are summed from the log again


def _decode(data: dict[str, Any] | None, path: Path, line: int) -> Message | None:
    if data is None:
        return None
    try:
        return Message.from_json(data)
    except ValueError as exc:
        log.warning("%s line %d is not a valid message (%s); skipped", path, line + 1, exc)
        return None
