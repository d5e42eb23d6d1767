"""Turn events -> what the user sees, in the three output formats of `chat -p`.

text: the answer on stdout (streamed when stdout is a terminal), progress on stderr.
json: one result object on stdout when the turn ends.
stream-json: one JSON object per line as things happen: init, message, tool_call, tool_result,
compaction, reflection, result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from mini_letta.conversations.messages import Usage
from mini_letta.loop.events import (
    AssistantDelta,
    CompactionEvent,
    MessageEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnResult,
)

OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")


@dataclass(frozen=True, slots=True)
class SessionInfo:
    agent_id: str
    conversation_id: str
    model: str
    tools: tuple[str, ...] = ()
    permission_mode: str = "default"


def usage_json(usage: Usage) -> dict[str, int]:
    """Usage for the user: the cache counts always present, so a script can rely on them."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadTokens": usage.cache_read_tokens,
        "cacheWriteTokens": usage.cache_write_tokens,
    }


def describe_usage(usage: Usage, calls: int) -> str:
    """One line: tokens in and out, and how much of the input the provider's cache served."""
    line = f"{usage.input_tokens} in, {usage.output_tokens} out over {calls} model calls"
    if usage.cache_read_tokens or usage.cache_write_tokens:
        share = 100 * usage.cache_read_tokens // max(1, usage.input_tokens)
        line += (
            f"; prompt cache: {usage.cache_read_tokens} read ({share}% of input), "
            f"{usage.cache_write_tokens} written"
        )
    return line


def _dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Renderer:
    """Renders one headless session (one or more turns) in the chosen format."""

    fmt: OutputFormat
    out: TextIO
    err: TextIO
    stream_text: bool = False
    info: SessionInfo | None = None
    compactions: int = 0
    _streamed: bool = field(default=False)

    def start(self, info: SessionInfo) -> None:
        self.info = info
        if self.fmt == "stream-json":
            self._line(
                {
                    "type": "init",
                    **self._ids(),
                    "model": info.model,
                    "tools": list(info.tools),
                    "permissionMode": info.permission_mode,
                }
            )

    def event(self, event: TurnEvent) -> None:
        if isinstance(event, CompactionEvent):
            self.compactions += 1
        if self.fmt == "text":
            self._text_event(event)
        elif self.fmt == "stream-json":
            self._stream_event(event)

    def finish(self, result: TurnResult, duration_ms: int, extra: dict[str, Any]) -> None:
        payload = {
            "type": "result",
            **self._ids(),
            "result": result.text,
            "stopReason": result.stop_reason,
            "steps": result.steps,
            "usage": usage_json(result.usage),
            "durationMs": duration_ms,
            "compactions": self.compactions,
            **extra,
        }
        if result.error:
            payload["error"] = result.error
        if self.fmt == "text":
            if self._streamed:
                self.out.write("\n")
            elif result.text:
                self.out.write(result.text + "\n")
            self.out.flush()
        else:
            self._line(payload)
        self._streamed = False

    def notice(self, kind: str, line: str, data: dict[str, Any]) -> None:
        """A side event such as a reflection outcome: a stderr line, or a stream-json event."""
        if self.fmt == "stream-json":
            self._line({"type": kind, **data})
        else:
            self.err.write(line + "\n")
            self.err.flush()

    def _ids(self) -> dict[str, str]:
        assert self.info is not None, "start() first"
        return {"agentId": self.info.agent_id, "conversationId": self.info.conversation_id}

    def _text_event(self, event: TurnEvent) -> None:
        if isinstance(event, AssistantDelta) and self.stream_text:
            self.out.write(event.text)
            self.out.flush()
            self._streamed = True
        elif isinstance(event, ToolCallEvent):
            self.err.write(f"  ⚙ {event.call.name} {event.call.arguments[:120]}\n")
        elif isinstance(event, ToolResultEvent) and event.result.is_error:
            self.err.write(f"  ✗ {event.result.content.splitlines()[0][:200]}\n")
        elif isinstance(event, CompactionEvent):
            self.err.write(
                f"  ↻ compacted {event.messages_compacted} messages "
                f"({event.tokens_before} → {event.tokens_after} tokens)\n"
            )
        elif isinstance(event, MessageEvent) and self._streamed and event.message.tool_calls:
            self.out.write("\n")
            self._streamed = False
        self.err.flush()

    def _stream_event(self, event: TurnEvent) -> None:
        if isinstance(event, MessageEvent):
            self._line({"type": "message", "line": event.line, "message": event.message.to_json()})
        elif isinstance(event, ToolCallEvent):
            self._line({"type": "tool_call", "toolCall": event.call.to_json()})
        elif isinstance(event, ToolResultEvent):
            self._line(
                {
                    "type": "tool_result",
                    "toolCallId": event.call.id,
                    "name": event.call.name,
                    "isError": event.result.is_error,
                    "content": event.result.content,
                }
            )
        elif isinstance(event, CompactionEvent):
            self._line(
                {
                    "type": "compaction",
                    "messagesCompacted": event.messages_compacted,
                    "tokensBefore": event.tokens_before,
                    "tokensAfter": event.tokens_after,
                    "trigger": event.trigger,
                    "summaryMessageId": event.summary_message_id,
                }
            )

    def _line(self, data: dict[str, Any]) -> None:
        self.out.write(_dumps(data) + "\n")
        self.out.flush()
