"""The message record: one line of messages.jsonl, and the one place it is (de)serialised.

Python uses snake_case, disk uses camelCase. Optional fields are omitted on disk when empty, so
a plain chat message stays a short line. A record that is not a valid message raises
`ValueError` naming the field; the log reader turns that into a skipped line. Text is made
storable on construction (`clean_text`): undecodable input bytes become U+FFFD, so a record
always encodes as UTF-8 JSON.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from mini_letta.storage.fields import optional_int, optional_str, require_str
from mini_letta.storage.text import clean_text
from mini_letta.structs import Struct, field

Role = Literal["user", "assistant", "tool", "summary"]
ROLES: tuple[Role, ...] = ("user", "assistant", "tool", "summary")

StopReason = Literal["end_turn", "tool_use", "max_steps", "max_tokens", "error", "interrupted"]


class UsageJson(TypedDict):
    inputTokens: int
    outputTokens: int
    cacheReadTokens: NotRequired[int]
    cacheWriteTokens: NotRequired[int]


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


class Usage(Struct, frozen=True):
    """A model call's token counts. `input_tokens` is the whole prompt, cached parts included;
    `cache_read_tokens` of it came from the provider's prompt cache (billed at a fraction) and
    `cache_write_tokens` were written to it (Anthropic bills those at a premium)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def to_json(self) -> UsageJson:
        """Cache counts only when there are any, so a plain usage stays a short line."""
        data: UsageJson = {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens}
        if self.cache_read_tokens:
            data["cacheReadTokens"] = self.cache_read_tokens
        if self.cache_write_tokens:
            data["cacheWriteTokens"] = self.cache_write_tokens
        return data

    @classmethod
    def from_json(cls, data: object) -> Usage:
        if not isinstance(data, dict):
            raise ValueError("usage must be an object")
        return cls(
            optional_int(data, "inputTokens", minimum=0) or 0,
            optional_int(data, "outputTokens", minimum=0) or 0,
            optional_int(data, "cacheReadTokens", minimum=0) or 0,
            optional_int(data, "cacheWriteTokens", minimum=0) or 0,
        )


class ToolCall(Struct, frozen=True):
    """A model's request to run a tool; `arguments` is the raw JSON text the model produced."""

    id: str
    name: str
    arguments: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "arguments", clean_text(self.arguments))

    def to_json(self) -> ToolCallJson:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_json(cls, data: object) -> ToolCall:
        if not isinstance(data, dict):
            raise ValueError("toolCalls entries must be objects")
        return cls(
            require_str(data, "id"), require_str(data, "name"), require_str(data, "arguments")
        )


class CompactionInfo(Struct, frozen=True):
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
        kept = optional_int(data, "keptFromLine", minimum=0)
        if kept is None:
            raise ValueError("compaction.keptFromLine must be an integer")
        return cls(
            kept_from_line=kept,
            kept_from_message_id=optional_str(data, "keptFromMessageId"),
            messages_compacted=optional_int(data, "messagesCompacted", minimum=0) or 0,
            tokens_before=optional_int(data, "tokensBefore", minimum=0) or 0,
            tokens_after=optional_int(data, "tokensAfter", minimum=0) or 0,
            trigger=optional_str(data, "trigger") or "",
        )


class Message(Struct, frozen=True):
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", clean_text(self.content))

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
        role = require_str(data, "role")
        if role not in ROLES:
            raise ValueError(f"role {role!r} is not one of {', '.join(ROLES)}")
        calls = data.get("toolCalls", [])
        if not isinstance(calls, list):
            raise ValueError("toolCalls must be a list")
        usage = data.get("usage")
        compaction = data.get("compaction")
        return cls(
            id=require_str(data, "id"),
            role=role,
            content=require_str(data, "content"),
            created_at=require_str(data, "createdAt"),
            tool_calls=tuple(ToolCall.from_json(call) for call in calls),
            tool_call_id=optional_str(data, "toolCallId"),
            name=optional_str(data, "name"),
            is_error=bool(data.get("isError", False)),
            model=optional_str(data, "model"),
            usage=None if usage is None else Usage.from_json(usage),
            stop_reason=optional_str(data, "stopReason"),
            compaction=None if compaction is None else CompactionInfo.from_json(compaction),
        )
