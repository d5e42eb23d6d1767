"""conversation.json: a conversation's identity and where its in-context view starts.

`context.startLine` / `context.startMessageId` point into messages.jsonl: the in-context view is
the log from that line on (compaction moves the pointer, it never rewrites the log). Unknown
keys read from disk are kept and written back, so newer fields survive an older writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mini_letta.conversations.messages import Message
from mini_letta.errors import CorruptFileError
from mini_letta.structs import Struct, field, replace

SCHEMA_VERSION = 1
TITLE_LENGTH = 60


def make_title(text: str) -> str:
    """A conversation's title: its first user message on one line, credentials redacted before
    it is cut (a title is shown in listings and kept in conversation.json)."""
    from mini_letta.memory.secrets import redact_secrets  # only on a conversation's first turn

    return " ".join(redact_secrets(text).split())[:TITLE_LENGTH]


class ContextPointer(Struct, frozen=True):
    start_line: int = 0
    start_message_id: str | None = None
    summary_message_id: str | None = None

    @classmethod
    def after(cls, summary: Message) -> ContextPointer:
        """The view a compaction leaves: `summary`, then the log from the line it kept."""
        info = summary.compaction
        if info is None:
            raise ValueError(f"{summary.id} is not a compaction summary")
        return cls(info.kept_from_line, info.kept_from_message_id, summary.id)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"startLine": self.start_line}
        if self.start_message_id is not None:
            data["startMessageId"] = self.start_message_id
        if self.summary_message_id is not None:
            data["summaryMessageId"] = self.summary_message_id
        return data

    @classmethod
    def from_json(cls, data: object) -> ContextPointer:
        if not isinstance(data, dict):
            raise ValueError("context must be an object")
        start = data.get("startLine", 0)
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise ValueError("context.startLine must be a non-negative integer")
        return cls(start, data.get("startMessageId"), data.get("summaryMessageId"))


class ConversationRecord(Struct, frozen=True):
    id: str
    agent_id: str
    title: str
    created_at: str
    updated_at: str
    context: ContextPointer = field(default_factory=ContextPointer)
    extra: dict[str, Any] = field(default_factory=dict)

    def with_updates(self, **changes: Any) -> ConversationRecord:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "schemaVersion": SCHEMA_VERSION,
            "id": self.id,
            "agentId": self.agent_id,
            "title": self.title,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "context": self.context.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], path: Path) -> ConversationRecord:
        known = {"schemaVersion", "id", "agentId", "title", "createdAt", "updatedAt", "context"}
        try:
            for key in ("id", "agentId", "createdAt"):
                if not isinstance(data.get(key), str):
                    raise ValueError(f"{key} must be a string")
            return cls(
                id=data["id"],
                agent_id=data["agentId"],
                title=str(data.get("title", "")),
                created_at=data["createdAt"],
                updated_at=str(data.get("updatedAt", data["createdAt"])),
                context=ContextPointer.from_json(data.get("context", {})),
                extra={k: v for k, v in data.items() if k not in known},
            )
        except ValueError as exc:
            raise CorruptFileError(path, str(exc), "fix or remove it") from exc
