"""Claude Code sessions (`~/.claude/projects/<project>/<session>.jsonl`) as our messages.

Entries of `type` user or assistant carry an Anthropic message (`message.content`: a string, or
blocks text, tool_use, tool_result, thinking); assistant blocks of one message arrive one per
line with the same `message.id` and are joined. What the person typed is a user message; a
tool_use a tool call; a tool_result a tool message (`is_error` kept); the `isCompactSummary`
line a summary. Harness text is left out and counted: meta lines, slash-command and
local-command markup (a command's typed arguments are kept as `/name args`), shell-mode
output, "[Request interrupted by user]" (which marks the assistant message it cut), side
chains. A resumed session's copied lines (same `uuid`) are read once. `summary` /
`custom-title` / `ai-title` lines give the title (a rename wins).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from mini_letta.conversations.messages import ToolCall
from mini_letta.conversations.transcript_base import (
    ImportedMessage,
    Reader,
    TranscriptError,
    joined_text,
    result_text,
    tool_arguments,
    with_changes,
)

# Claude Code's markup around what the harness did rather than what the person said.
_HARNESS_TAGS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<system-reminder>",
)
CLAUDE_BOOKKEEPING = {"summary", "custom-title", "ai-title", "file-history-snapshot"}
_INTERRUPTED = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
_COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]*)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>([^<]*)</command-args>")


class ClaudeCodeReader(Reader):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.seen: set[str] = set()  # a resumed session copies earlier lines: same uuid
        self.tool_names: dict[str, str] = {}
        self.reply_id: object = None  # message.id of the assistant message being built
        self.titles: dict[str, str] = {}

    def feed(self, number: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind in ("summary", "custom-title", "ai-title"):
            key = {"summary": "summary", "custom-title": "customTitle", "ai-title": "aiTitle"}
            text = record.get(key[str(kind)])
            if isinstance(text, str) and text.strip():
                self.titles[str(kind)] = text.strip()
            return
        if kind not in ("user", "assistant"):
            return  # system, attachment, progress, file-history-snapshot, …
        if self.session_id is None and isinstance(record.get("sessionId"), str):
            self.session_id = record["sessionId"]
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            if uuid in self.seen:
                return
            self.seen.add(uuid)
        if record.get("isSidechain"):
            return
        message = record.get("message")
        if not isinstance(message, dict):
            raise TranscriptError(f"{self.where(number)}: a {kind} entry without a message object")
        created = self.time_of(record, number)
        content = message.get("content")
        if not isinstance(content, (str, list)):
            raise TranscriptError(
                f"{self.where(number)}: message.content must be a string or a list of blocks"
            )
        if kind == "assistant":
            self._assistant(message, content, created)
        elif record.get("isCompactSummary"):
            self.reply_id = None
            text = joined_text(content)
            if text:
                self.out.append(ImportedMessage("summary", text, created))
        elif record.get("isMeta"):
            self.harness_lines += 1
        else:
            self._user(content, created)

    def _assistant(
        self, message: dict[str, Any], content: str | list[Any], created: datetime | None
    ) -> None:
        text = content.strip() if isinstance(content, str) else joined_text(content)
        calls: list[ToolCall] = []
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call_id = str(block.get("id") or f"toolu_{len(self.tool_names)}")
                name = str(block.get("name") or "tool")
                self.tool_names[call_id] = name
                calls.append(ToolCall(call_id, name, tool_arguments(block.get("input"))))
        if not text and not calls:
            return  # thinking only
        same = message.get("id") is not None and message.get("id") == self.reply_id
        if same and self.out and self.out[-1].role == "assistant":
            last = self.out[-1]
            joined = "\n".join(part for part in (last.content, text) if part)
            self.out[-1] = with_changes(last, content=joined, tool_calls=(*last.tool_calls, *calls))
            return
        self.reply_id = message.get("id")
        self.out.append(ImportedMessage("assistant", text, created, tuple(calls)))

    def _user(self, content: str | list[Any], created: datetime | None) -> None:
        self.reply_id = None
        texts: list[str] = []
        for block in [content] if isinstance(content, str) else content:
            if isinstance(block, str):
                texts.append(block)
            elif not isinstance(block, dict):
                continue
            elif block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id") or "")
                self.out.append(
                    ImportedMessage(
                        "tool",
                        result_text(block.get("content")),
                        created,
                        tool_call_id=call_id,
                        name=self.tool_names.get(call_id, "tool"),
                        is_error=block.get("is_error") is True,
                    )
                )
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        for text in texts:
            said = self._said(text.strip())
            if said:
                self.out.append(ImportedMessage("user", said, created))

    def _said(self, text: str) -> str:
        """What the person said in `text`, or "" for harness text (counted)."""
        if not text:
            return ""
        if text.startswith(_INTERRUPTED):
            self.harness_lines += 1
            self.interrupt_last()
            return ""
        if text.startswith(_HARNESS_TAGS):
            self.harness_lines += 1
            command = _COMMAND.search(text)
            args = _COMMAND_ARGS.search(text)
            if command and args and args.group(1).strip():  # `/review PR 12`: typed words
                name = command.group(1)
                return f"{name if name.startswith('/') else '/' + name} {args.group(1).strip()}"
            return ""
        return text

    def finish(self) -> list[ImportedMessage]:
        for kind in ("custom-title", "summary", "ai-title"):
            if kind in self.titles:
                self.title = self.titles[kind]
                break
        return self.out
