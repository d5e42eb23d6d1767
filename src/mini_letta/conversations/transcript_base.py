"""What the transcript readers share: the imported message, the errors, the reader's base and
the helpers that turn another tool's content blocks into our message shapes."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import MiniLettaError
from mini_letta.structs import Struct, field

TranscriptFormat = Literal["jsonl", "claude-code", "codex"]
ImportedRole = Literal["user", "assistant", "tool", "summary"]


class TranscriptError(MiniLettaError):
    """The file is not a transcript of the expected format; the message names the line."""


class EmptyTranscriptError(TranscriptError):
    """A readable transcript with no message in it (a Claude Code file of titles only)."""


class ImportedMessage(Struct, frozen=True):
    role: ImportedRole
    content: str
    created_at: datetime | None  # None: the import time
    tool_calls: tuple[ToolCall, ...] = field(default=())
    tool_call_id: str | None = None  # on a tool message: the call it answers
    name: str | None = None  # on a tool message: the tool
    is_error: bool = False
    stop_reason: str | None = None  # "interrupted" when the person cut it short


class Reader:
    """Fed records in file order; `finish` returns the messages."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.out: list[ImportedMessage] = []
        self.session_id: str | None = None
        self.title: str | None = None
        self.harness_lines = 0

    def feed(self, number: int, record: dict[str, Any]) -> None:
        raise NotImplementedError

    def finish(self) -> list[ImportedMessage]:
        return self.out

    def where(self, number: int) -> str:
        return f"{self.path} line {number}"

    def time_of(self, record: dict[str, Any], number: int) -> datetime | None:
        stamp = record.get("timestamp")
        return parse_time(stamp, self.where(number)) if isinstance(stamp, str) else None

    def interrupt_last(self) -> None:
        """The person cut the last assistant message short."""
        for index in range(len(self.out) - 1, -1, -1):
            if self.out[index].role == "assistant":
                self.out[index] = with_changes(self.out[index], stop_reason="interrupted")
                return


def joined_text(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return content.strip()
    parts = [
        block["text"].strip()
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(part for part in parts if part)


def result_text(content: object) -> str:
    """A tool result's content: a string, or blocks (text kept, an image named)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else json.dumps(content, ensure_ascii=False)
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") in ("image", "input_image"):
            parts.append("[image]")
        elif isinstance(block, str):
            parts.append(block)
    return "\n".join(parts)


def tool_arguments(value: object) -> str:
    """A call's arguments as JSON text, as our tool calls keep them."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError, RecursionError):
            json.loads(value)
            return value
        return json.dumps({"input": value}, ensure_ascii=False)
    return json.dumps({} if value is None else value, ensure_ascii=False)


def with_changes(message: ImportedMessage, **changes: Any) -> ImportedMessage:
    from mini_letta.structs import replace

    return replace(message, **changes)


def parse_time(value: str, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment.astimezone(UTC)  # an offset can carry year 1 or 9999 out of range
    except (ValueError, OverflowError):
        raise TranscriptError(f"{where}: {value!r} is not an ISO 8601 time") from None
    return moment
