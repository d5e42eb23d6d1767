"""What a turn reports as it runs; renderers (text, json, stream-json) consume these."""

from __future__ import annotations

from dataclasses import dataclass

from mini_letta.conversations.messages import Message, StopReason, ToolCall, Usage
from mini_letta.tools.base import ToolResult


@dataclass(frozen=True, slots=True)
class MessageEvent:
    """A message was appended (durably) to the conversation log."""

    message: Message
    line: int


@dataclass(frozen=True, slots=True)
class AssistantDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    call: ToolCall
    result: ToolResult


@dataclass(frozen=True, slots=True)
class CompactionEvent:
    messages_compacted: int
    tokens_before: int
    tokens_after: int
    trigger: str
    summary_message_id: str


@dataclass(frozen=True, slots=True)
class TurnResult:
    stop_reason: StopReason
    text: str
    usage: Usage
    steps: int
    error: str | None = None


TurnEvent = (
    MessageEvent | AssistantDelta | ToolCallEvent | ToolResultEvent | CompactionEvent | TurnResult
)
