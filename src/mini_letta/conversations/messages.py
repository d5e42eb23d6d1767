"""The message record: one line of messages.jsonl, and the one place it is (de)serialised.

Python uses snake_case, disk uses camelCase (SPEC §2-3). Optional fields are omitted on disk
when empty, so a plain chat message stays a short line. A record that is not a valid message
raises `ValueError` naming the field; the log reader turns that into a skipped line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, cast

Role = Literal["user", "assistant", "tool", "summary"]
ROLES: tuple[Role, ...] = ("user", "assistant", "tool", "summary")

StopReason = Literal["end_turn", "tool_use", "max_steps", "max_tokens", "error", "interrupted"]


class UsageJson(TypedDict):
    inputTokens: int
    outputTokens: int


class ToolCallJson(TypedDict):
    id: str
    name: str
    arguments: str


class CompactionJson(TypedDict):
    keptFromLine: int
    keptFromMessageId: NotRequired[str]
    messagesCompacted: int
    tokensBefore: int
    tokensAfter: int
    trigger: str


class MessageJson(TypedDict):
    id: str
    role: str
    content: str
    createdAt: str
    toolCalls: NotRequired[list[ToolCallJson]]
    toolCallId: NotRequired[str]
    name: NotRequired[str]
    isError: NotRequired[bool]
    model: NotRequired[str]
    usage: NotRequired[UsageJson]
    stopReason: NotRequired[str]
    compaction: NotRequired[CompactionJson]


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    def to_json(self) -> UsageJson:
        return {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens}

    @classmethod
    def from_json(cls, data: object) -> Usage:
        if not isinstance(data, dict):
            raise ValueError("usage must be an object")
        return cls(_int(data, "inputTokens"), _int(data, "outputTokens"))


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A model's request to run a tool; `arguments` is the raw JSON text the model produced."""

    id: str
    name: str
    arguments: str

    def to_json(self) -> ToolCallJson:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_json(cls, data: object) -> ToolCall:
        if not isinstance(data, dict):
            raise ValueError("toolCalls entries must be objects")
        return cls(_str(data, "id"), _str(data, "name"), _str(data, "arguments"))


@dataclass(frozen=True, slots=True)
class CompactionInfo:
    """On a `summary` message: what it replaces. The in-context view is this summary, then the
    log from `kept_from_line` on (other summaries left out), so the log alone defines the view."""

    kept_from_line: int
    kept_from_message_id: str | None
    messages_compacted: int
    tokens_before: int
    tokens_after: int
    trigger: str

    def to_json(self) -> CompactionJson:
        data: CompactionJson = {
            "keptFromLine": self.kept_from_line,
            "messagesCompacted": self.messages_compacted,
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "trigger": self.trigger,
        }
        if self.kept_from_message_id is not None:
            data["keptFromMessageId"] = self.kept_from_message_id
        return data

    @classmethod
    def from_json(cls, data: object) -> CompactionInfo:
        if not isinstance(data, dict):
            raise ValueError("compaction must be an object")
        kept = _int(data, "keptFromLine")
        if kept < 0:
            raise ValueError("compaction.keptFromLine must not be negative")
        return cls(
            kept_from_line=kept,
            kept_from_message_id=_opt_str(data, "keptFromMessageId"),
            messages_compacted=_int(data, "messagesCompacted"),
            tokens_before=_int(data, "tokensBefore"),
            tokens_after=_int(data, "tokensAfter"),
            trigger=_opt_str(data, "trigger") or "",
        )


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    role: Role
    content: str
    created_at: str
    tool_calls: tuple[ToolCall, ...] = field(default=())
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    model: str | None = None
    usage: Usage | None = None
    stop_reason: str | None = None
    compaction: CompactionInfo | None = None

    def to_json(self) -> MessageJson:
        data: MessageJson = {
            "id": self.id,
            "role": self.role,
            "content": self.content,
            "createdAt": self.created_at,
        }
        if self.tool_calls:
            data["toolCalls"] = [call.to_json() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["toolCallId"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        if self.is_error:
            data["isError"] = True
        if self.model is not None:
            data["model"] = self.model
        if self.usage is not None:
            data["usage"] = self.usage.to_json()
        if self.stop_reason is not None:
            data["stopReason"] = self.stop_reason
        if self.compaction is not None:
            data["compaction"] = self.compaction.to_json()
        return data

    @classmethod
    def from_json(cls, data: object) -> Message:
        if not isinstance(data, dict):
            raise ValueError("a message must be an object")
        role = _str(data, "role")
        if role not in ROLES:
            raise ValueError(f"role {role!r} is not one of {', '.join(ROLES)}")
        calls = data.get("toolCalls", [])
        if not isinstance(calls, list):
            raise ValueError("toolCalls must be a list")
        usage = data.get("usage")
        compaction = data.get("compaction")
        return cls(
            id=_str(data, "id"),
            role=cast(Role, role),
            content=_str(data, "content"),
            created_at=_str(data, "createdAt"),
            tool_calls=tuple(ToolCall.from_json(call) for call in calls),
            tool_call_id=_opt_str(data, "toolCallId"),
            name=_opt_str(data, "name"),
            is_error=bool(data.get("isError", False)),
            model=_opt_str(data, "model"),
            usage=None if usage is None else Usage.from_json(usage),
            stop_reason=_opt_str(data, "stopReason"),
            compaction=None if compaction is None else CompactionInfo.from_json(compaction),
        )


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} must be an integer")
    return value
