"""conversation.json: a conversation's identity and where its in-context view starts.

`context.startLine` / `context.startMessageId` point into messages.jsonl: the in-context view is
the log from that line on (compaction moves the pointer, it never rewrites the log). Every
other key is declared here too, each with the one module that shapes its value (`EXTRAS`);
unknown keys read from disk are kept in `extra` and written back, so newer fields survive an
older writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mini_letta.conversations.messages import Message
from mini_letta.errors import CorruptFileError
from mini_letta.storage.fields import require_str
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


# conversation.json key -> (field, the module that shapes its value); each value is a JSON
# object that module reads and writes, the record only carries it.
EXTRAS: dict[str, tuple[str, str]] = {
    "lastTurn": ("last_turn", "loop/turn.py"),
    "usageTotals": ("usage_totals", "conversations/store.py"),
    "systemPrompt": ("system_prompt", "context/prompt_pin.py"),
    "reminders": ("reminders", "context/reminders.py"),
    "importedFrom": ("imported_from", "conversations/importer.py"),
}


class ConversationRecord(Struct, frozen=True):
    id: str
    agent_id: str
    title: str
    created_at: str
    updated_at: str
    context: ContextPointer = field(default_factory=ContextPointer)
    last_turn: dict[str, Any] | None = None  # stopReason, steps (and error) of the last turn
    usage_totals: dict[str, Any] | None = None  # the token counts of every model call so far
    system_prompt: dict[str, Any] | None = None  # the pinned memory commit and updates told
    reminders: dict[str, Any] | None = None  # the message that carries the standing reminders
    imported_from: dict[str, Any] | None = None  # format and file of an imported transcript
    extra: dict[str, Any] = field(default_factory=dict)  # keys this version does not know

    def with_updates(self, **changes: Any) -> ConversationRecord:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        extras = {key: getattr(self, name) for key, (name, _) in EXTRAS.items()}
        return {
            **self.extra,
            **{key: value for key, value in extras.items() if value is not None},
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
        known |= set(EXTRAS)
        try:
            for key in ("id", "agentId", "createdAt"):
                require_str(data, key)
            extras = {name: _object(data, key) for key, (name, _) in EXTRAS.items()}
            return cls(
                id=data["id"],
                agent_id=data["agentId"],
                title=str(data.get("title", "")),
                created_at=data["createdAt"],
                updated_at=str(data.get("updatedAt", data["createdAt"])),
                context=ContextPointer.from_json(data.get("context", {})),
                **extras,
                extra={k: v for k, v in data.items() if k not in known},
            )
        except ValueError as exc:
            raise CorruptFileError(path, str(exc), "fix or remove it") from exc


def _object(data: dict[str, Any], key: str) -> dict[str, Any] | None:
    """An extra's value: a JSON object, or None when absent. Its owner checks what is inside;
    a value of another type is dropped here, as that owner would ignore it."""
    value = data.get(key)
    return value if isinstance(value, dict) else None
