"""What a turn reports as it runs; renderers (text, json, stream-json) consume these."""

from __future__ import annotations

from mini_letta.conversations.messages import Message, StopReason, ToolCall, Usage
from mini_letta.structs import Struct
from mini_letta.tools.base import ToolResult


class MessageEvent(Struct, frozen=True):
    """A message was appended (durably) to the conversation log."""

    message: Message
    line: int


class AssistantDelta(Struct, frozen=True):
    text: str


class ThoughtDelta(Struct, frozen=True):
    """A piece of the model's reasoning as it streams: shown by front ends that care (an
    editor's thought chunks), never appended to the conversation, so never replayed or
    reflected on."""

    text: str


class ToolCallEvent(Struct, frozen=True):
    call: ToolCall


class ToolResultEvent(Struct, frozen=True):
    call: ToolCall
    result: ToolResult


class CompactionEvent(Struct, frozen=True):
    messages_compacted: int
    tokens_before: int
    tokens_after: int
    trigger: str
    summary_message_id: str


class TurnResult(Struct, frozen=True):
    stop_reason: StopReason
    text: str
    usage: Usage
    steps: int
    error: str | None = None


TurnEvent = (
    MessageEvent
    | AssistantDelta
    | ThoughtDelta
    | ToolCallEvent
    | ToolResultEvent
    | CompactionEvent
    | TurnResult
)
