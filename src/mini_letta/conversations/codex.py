"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`) as our messages.

Lines are `{"timestamp", "type", "payload"}` (older files write the payload alone, after a bare
header): response_item messages give the words (Codex's environment and instruction preambles
and developer messages left out, counted), function_call / custom_tool_call /
local_shell_call tool calls, their *_output tool messages (a non-zero exit code marks an
error); `compacted` is a summary, `turn_aborted` marks the cut assistant message, session_meta
names the session. The event_msg user_message / agent_message mirror of the same words is read
only from a rollout that has no response-item messages.
"""

from __future__ import annotations

import contextlib
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mini_letta.conversations.messages import ToolCall
from mini_letta.conversations.transcript_base import (
    ImportedMessage,
    ImportedRole,
    Reader,
    TranscriptError,
    result_text,
    tool_arguments,
    with_changes,
)

_CODEX_BOILERPLATE = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
)
CODEX_WRAPPERS = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}


class CodexReader(Reader):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.tool_names: dict[str, str] = {}
        self.said = False  # any user or assistant message among the response items
        self.events: list[ImportedMessage] = []  # event_msg's mirror of the same words

    def finish(self) -> list[ImportedMessage]:
        """The response items; a rollout that holds the words only as events (no
        response-item messages) gives them from its user_message / agent_message events."""
        if not self.said and self.events:
            return sorted([*self.out, *self.events], key=_when)
        return self.out

    def feed(self, number: int, record: dict[str, Any]) -> None:
        where = self.where(number)
        kind = record.get("type")
        created = self.time_of(record, number)
        if kind == "session_meta" or (kind is None and "id" in record):
            meta = record.get("payload", record)
            if isinstance(meta, dict) and isinstance(meta.get("id"), str):
                self.session_id = self.session_id or meta["id"]
            return
        if kind == "compacted":
            payload = record.get("payload")
            text = payload.get("message") if isinstance(payload, dict) else None
            if isinstance(text, str) and text.strip():
                self.out.append(ImportedMessage("summary", text.strip(), created))
            return
        if kind == "event_msg":
            payload = record.get("payload")
            event = payload.get("type") if isinstance(payload, dict) else None
            if event == "turn_aborted":
                self.interrupt_last()
            elif event in ("user_message", "agent_message") and isinstance(payload, dict):
                text = payload.get("message")
                if isinstance(text, str) and text.strip():
                    role: ImportedRole = "user" if event == "user_message" else "assistant"
                    self.events.append(ImportedMessage(role, text.strip(), created))
            return
        if kind in CODEX_WRAPPERS:
            if kind != "response_item":
                return
            item = record.get("payload")
            if not isinstance(item, dict):
                raise TranscriptError(f"{where}: response_item without a payload object")
        elif "record_type" in record:
            return
        else:
            item = record  # an older rollout writes the item itself
        self._item(item, where, created)

    def _item(self, item: dict[str, Any], where: str, created: datetime | None) -> None:
        kind = item.get("type")
        if kind == "message":
            self._message(item, where, created)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            call_id = str(item.get("call_id") or item.get("id") or f"call_{len(self.tool_names)}")
            if kind == "local_shell_call":
                action = item.get("action")
                command = action.get("command") if isinstance(action, dict) else None
                name, arguments = "shell", json.dumps({"command": command}, ensure_ascii=False)
            else:
                name = str(item.get("name") or "tool")
                arguments = tool_arguments(item.get("arguments", item.get("input")))
            self.tool_names[call_id] = name
            call = ToolCall(call_id, name, arguments)
            last = self.out[-1] if self.out else None
            if last is not None and last.role == "assistant" and last.stop_reason is None:
                self.out[-1] = with_changes(last, tool_calls=(*last.tool_calls, call))
            else:
                self.out.append(ImportedMessage("assistant", "", created, (call,)))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = str(item.get("call_id") or "")
            text, failed = _codex_output(item.get("output"))
            self.out.append(
                ImportedMessage(
                    "tool",
                    text,
                    created,
                    tool_call_id=call_id,
                    name=self.tool_names.get(call_id, "tool"),
                    is_error=failed,
                )
            )

    def _message(self, item: dict[str, Any], where: str, created: datetime | None) -> None:
        role = item.get("role")
        if role not in ("user", "assistant"):
            self.harness_lines += 1  # system / developer instructions
            return
        content = item.get("content")
        if not isinstance(content, list):
            raise TranscriptError(f"{where}: message content must be a list")
        text = "\n".join(
            block["text"].strip()
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ).strip()
        if not text:
            return
        if role == "user" and text.startswith(_CODEX_BOILERPLATE):
            self.harness_lines += 1
            return
        self.said = True
        last = self.out[-1] if self.out else None
        if role == "assistant" and last is not None and _open_assistant(last):
            self.out[-1] = with_changes(last, content=f"{last.content}\n{text}".strip())
            return
        self.out.append(ImportedMessage("user" if role == "user" else "assistant", text, created))


def _when(message: ImportedMessage) -> datetime:
    return message.created_at or datetime.min.replace(tzinfo=UTC)


def _open_assistant(message: ImportedMessage) -> bool:
    """An assistant message more text can join: no calls made yet and not cut short."""
    return message.role == "assistant" and not message.tool_calls and message.stop_reason is None


def _codex_output(output: object) -> tuple[str, bool]:
    """(text, failed) of a Codex tool output: a plain string (possibly the older JSON
    `{"output", "metadata": {"exit_code"}}`), a list of content items, or `{content, success}`."""
    if isinstance(output, str):
        with contextlib.suppress(ValueError, RecursionError):
            parsed = json.loads(output)
            if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
                meta = parsed.get("metadata")
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                return parsed["output"], isinstance(code, int) and code != 0
        match = re.match(r"Exit code: (-?\d+)", output)
        return output, bool(match and match.group(1) != "0")
    if isinstance(output, dict):
        text = result_text(output.get("content"))
        return text, output.get("success") is False
    return result_text(output), False
