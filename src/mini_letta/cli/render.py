"""Turn events -> what the user sees, in the three output formats of `chat -p`.

text: the answer on stdout (streamed when stdout is a terminal), progress on stderr.
json: one result object on stdout when the turn ends.
stream-json: one JSON object per line as things happen: init, message, tool_call, tool_result,
compaction, reflection, result.

Rendering never aborts a turn: the core has recorded each message before it is shown, and a
stdout that is closed, full or whose reader went away (`| head`) only sets `lost_output`,
which the command reports as one line once the turn is done.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from mini_letta.cli.fit import fit_line, shorten, text_columns, wrap_lines
from mini_letta.conversations.messages import ToolCall, Usage
from mini_letta.errors import MiniLettaError
from mini_letta.loop.events import (
    AssistantDelta,
    CompactionEvent,
    MessageEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnResult,
)
from mini_letta.structs import Struct, field
from mini_letta.tools.base import ToolResult, describe_call, parse_arguments

if TYPE_CHECKING:
    from mini_letta.cli.answer_view import AnswerView
    from mini_letta.cli.chat_args import OutputFormat

TOOL_CALL_COLUMNS = 120  # of what a tool call does, on its one stderr line
TOOL_ERROR_COLUMNS = 200  # of a failed tool's first line


class SessionInfo(Struct, frozen=True):
    agent_id: str
    conversation_id: str
    model: str
    tools: tuple[str, ...] = ()
    permission_mode: str = "default"
    cwd: str = ""


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


def tool_line(
    call: ToolCall, result: ToolResult, number: int | None = None, width: int | None = None
) -> str:
    """One line per tool call: what ran, and how it ended (the first line of an error).

    `number` is the call's place in its turn (the interactive session's `/expand N`); with a
    `width` the line fits it, what ran and the error sharing the room."""
    try:
        what = describe_call(call.name, parse_arguments(call.arguments))
    except MiniLettaError:
        what = f"{call.name} {call.arguments}"
    head = "  ⚙ " + ("" if number is None else f"[{number}] ")
    lines = result.content.splitlines()
    if result.is_error:
        mark, tail = "✗", lines[0] if lines else "failed"
    else:
        mark = "✓"
        tail = "no output" if not lines else f"{len(lines)} line" + ("s" if len(lines) > 1 else "")
    if width is None:
        what, tail = shorten(what, TOOL_CALL_COLUMNS), shorten(tail, TOOL_ERROR_COLUMNS)
    else:
        room = max(16, width - text_columns(head) - 3)  # 3: the mark and its spaces
        share = text_columns(tail) if not result.is_error else min(text_columns(tail), room // 2)
        what = shorten(what, max(8, room - share))
        tail = shorten(tail, max(8, room - text_columns(what)))
    return fit_line(f"{head}{what} {mark} {tail}", width)


def _dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _describe(exc: Exception) -> str:
    if isinstance(exc, BrokenPipeError):
        return "its reader closed it"
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return "it is closed"


def claude_result_fields(result: TurnResult, duration_ms: int, session: str) -> dict[str, Any]:
    """The result fields scripts written for `claude -p` read (the session is the
    conversation; a turn's model steps are its turns)."""
    if not result.error:
        subtype = "success"
    elif result.stop_reason == "max_steps":
        subtype = "error_max_turns"
    else:
        subtype = "error_during_execution"
    return {
        "subtype": subtype,
        "is_error": bool(result.error),
        "session_id": session,
        "num_turns": result.steps,
        "duration_ms": duration_ms,
    }


class Renderer(Struct):
    """Renders one headless session (one or more turns) in the chosen format.

    `out` or `err` None means that stream is closed (Python's `sys.stdout` after `>&-`).
    """

    fmt: OutputFormat
    out: TextIO | None
    err: TextIO | None
    stream_text: bool = False
    info: SessionInfo | None = None
    compactions: int = 0
    answer: AnswerView | None = None  # the interactive session's terminal: markdown at the end
    last_usage: Usage | None = None  # the last model call's, for the status line
    width: Callable[[], int | None] = field(default=lambda: None)  # the terminal's columns
    number_tools: bool = False  # the interactive session: `[N]` on tool lines, for /expand N
    tool_count: int = 0  # tool calls shown in this turn
    lost_output: str | None = None  # why stdout stopped taking output, once it did
    _streamed: bool = field(default=False)

    def start(self, info: SessionInfo) -> None:
        self.info = info
        if self.out is None:
            self.lost_output = "it is closed"
        if self.fmt == "stream-json":
            self._line(
                {
                    "type": "system",  # as `claude -p`'s first event, for scripts written for it
                    "subtype": "init",
                    "session_id": info.conversation_id,
                    "cwd": info.cwd,
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
            **claude_result_fields(result, duration_ms, self._ids()["conversationId"]),
        }
        if result.error:
            payload["error"] = result.error
        if self.fmt == "text":
            if self._streamed and self.answer is not None:
                self.answer.finish()
            elif self._streamed:
                self._out("\n")
            elif result.text:
                self._out(result.text + "\n")
        else:
            self._line(payload)
        self._streamed = False

    def notice(self, kind: str, line: str, data: dict[str, Any]) -> None:
        """A side event such as a reflection outcome: a stderr line, or a stream-json event."""
        if self.fmt == "stream-json":
            self._line({"type": kind, **data})
        else:
            self.error_line(line)

    def error_line(self, line: str) -> None:
        """A line on stderr, wrapped to the terminal; a closed stderr is ignored (there is
        nowhere else to say it)."""
        self._err("".join(row + "\n" for row in wrap_lines([line], self.width())))

    def _ids(self) -> dict[str, str]:
        assert self.info is not None, "start() first"
        return {"agentId": self.info.agent_id, "conversationId": self.info.conversation_id}

    def _text_event(self, event: TurnEvent) -> None:
        if isinstance(event, MessageEvent) and event.message.usage is not None:
            self.last_usage = event.message.usage
        if isinstance(event, AssistantDelta) and self.stream_text:
            if self.answer is not None:
                self.answer.delta(event.text)
            else:
                self._out(event.text)
            self._streamed = True
        elif isinstance(event, ToolResultEvent):
            self.tool_count += 1
            number = self.tool_count if self.number_tools else None
            self._err(tool_line(event.call, event.result, number, self.width()) + "\n")
        elif isinstance(event, CompactionEvent):
            self.error_line(
                f"  ↻ compacted {event.messages_compacted} messages "
                f"({event.tokens_before} → {event.tokens_after} tokens)"
            )
        elif isinstance(event, MessageEvent) and self._streamed and event.message.tool_calls:
            if self.answer is not None:
                self.answer.break_segment()
            else:
                self._out("\n")
            self._streamed = False

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
        self._out(_dumps(data) + "\n")

    def _out(self, text: str) -> None:
        if self.out is None or self.lost_output is not None:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError) as exc:  # ValueError: the stream object was closed
            self.lost_output = _describe(exc)

    def _err(self, text: str) -> None:
        if self.err is None:
            return
        try:
            self.err.write(text)
            self.err.flush()
        except (OSError, ValueError):
            self.err = None
