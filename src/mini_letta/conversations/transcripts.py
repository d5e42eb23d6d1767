"""Readers for other tools' transcripts: plain JSONL, Claude Code sessions, Codex rollouts.

Each reader turns a file into `ImportedMessage`s (user and assistant text, in order, with their
times); tool calls become one summary line in the assistant's text and tool output is left
out, since an imported conversation is for recall and reflection, not for replaying tools. A
line that cannot be read is a `TranscriptError` naming the file and line; nothing is guessed.

- `jsonl`: one message per line, `{"role": "user"|"assistant", "content": str, "createdAt"}`.
- `claude-code`: `~/.claude/projects/<project>/<session>.jsonl`; entries of `type` user or
  assistant carry `message.content` (a string, or blocks: text, tool_use, tool_result,
  thinking); side chains (sub-agents) and meta entries are skipped.
- `codex`: a Codex CLI rollout; `{"timestamp", "type": "response_item", "payload": {...}}`
  lines (or, in older files, the payload alone) of type message, function_call,
  custom_tool_call or local_shell_call; session_meta, turn_context, event_msg and reasoning
  are skipped, as are the environment and instruction messages Codex adds to every session.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from mini_letta.errors import MiniLettaError
from mini_letta.structs import Struct

TranscriptFormat = Literal["jsonl", "claude-code", "codex"]
FORMATS: tuple[str, ...] = ("auto", "jsonl", "claude-code", "codex")
TOOL_SUMMARY_LIMIT = 200
_CODEX_BOILERPLATE = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")
_CODEX_WRAPPERS = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}


class TranscriptError(MiniLettaError):
    """The file is not a transcript of the expected format; the message names the line."""


MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024  # far past any real session; read into memory whole


class ImportedMessage(Struct, frozen=True):
    role: Literal["user", "assistant"]
    content: str
    created_at: datetime | None  # None: the import time


class Transcript(Struct, frozen=True):
    format: TranscriptFormat
    messages: tuple[ImportedMessage, ...]


def load_transcript(path: Path, fmt: str = "auto") -> Transcript:
    """Read and parse the whole file; a TranscriptError names the file and line."""
    from mini_letta.errors import FrontmatterError
    from mini_letta.memory.files import read_plain_bytes

    try:  # a regular file (never a FIFO or a device), refused by its size before it is read
        raw = read_plain_bytes(path.resolve(), str(path), MAX_TRANSCRIPT_BYTES, "transcripts")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise TranscriptError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except FrontmatterError as exc:
        raise TranscriptError(str(exc)) from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    records = list(_records(path, text))
    chosen: TranscriptFormat = detect_format(path, records) if fmt == "auto" else _known(fmt)
    messages = tuple(_READERS[chosen](path, records))
    if not messages:
        raise TranscriptError(f"{path}: no user or assistant messages found ({chosen} format)")
    return Transcript(chosen, messages)


def _known(fmt: str) -> TranscriptFormat:
    for known in _READERS:
        if fmt == known:
            return known
    raise TranscriptError(f"unknown transcript format {fmt!r} (one of {', '.join(FORMATS)})")


Record = tuple[int, dict[str, Any]]  # (1-based line number, the JSON object)


def _records(path: Path, text: str) -> Iterator[Record]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise TranscriptError(f"{path} line {number}: not valid JSON ({exc})") from None
        except RecursionError:
            raise TranscriptError(f"{path} line {number}: JSON nested too deeply") from None
        if not isinstance(value, dict):
            raise TranscriptError(f"{path} line {number}: expected a JSON object")
        yield number, value


def detect_format(path: Path, records: list[Record]) -> TranscriptFormat:
    """Guess from the first records' shape; an unknown shape is an error asking for --format."""
    for _, record in records[:50]:
        kind = record.get("type")
        if kind in _CODEX_WRAPPERS and "payload" in record:
            return "codex"
        if isinstance(record.get("message"), dict) and ("sessionId" in record or "uuid" in record):
            return "claude-code"
        if "role" in record and isinstance(record.get("content"), str):
            return "jsonl"
        if kind == "message" and isinstance(record.get("content"), list):
            return "codex"  # an older rollout: payloads without the wrapper
    raise TranscriptError(
        f"{path}: cannot tell the transcript format; give --format jsonl, claude-code or codex"
    )


# -- jsonl ------------------------------------------------------------------------------------


def _read_jsonl(path: Path, records: list[Record]) -> Iterator[ImportedMessage]:
    for number, record in records:
        where = f"{path} line {number}"
        role, content = record.get("role"), record.get("content")
        if role not in ("user", "assistant"):
            raise TranscriptError(f'{where}: role must be "user" or "assistant", not {role!r}')
        if not isinstance(content, str):
            raise TranscriptError(f"{where}: content must be a string")
        created = record.get("createdAt")
        if created is not None and not isinstance(created, str):
            raise TranscriptError(f"{where}: createdAt must be an ISO 8601 string")
        yield ImportedMessage(role, content, _time(created, where) if created else None)


# -- Claude Code ------------------------------------------------------------------------------


def _read_claude_code(path: Path, records: list[Record]) -> Iterator[ImportedMessage]:
    pending: ImportedMessage | None = None
    pending_id: object = None
    for number, record in records:
        kind = record.get("type")
        if kind not in ("user", "assistant") or record.get("isSidechain") or record.get("isMeta"):
            continue
        where = f"{path} line {number}"
        message = record.get("message")
        if not isinstance(message, dict):
            raise TranscriptError(f"{where}: a {kind} entry without a message object")
        text = _claude_text(message.get("content"), where)
        if not text:
            continue
        stamp = record.get("timestamp")
        created = _time(stamp, where) if isinstance(stamp, str) else None
        current = ImportedMessage("user" if kind == "user" else "assistant", text, created)
        same_reply = kind == "assistant" and pending is not None and pending.role == "assistant"
        if same_reply and pending_id is not None and message.get("id") == pending_id:
            assert pending is not None
            current = ImportedMessage(
                "assistant", pending.content + "\n" + text, pending.created_at
            )
        elif pending is not None:
            yield pending
        pending, pending_id = current, message.get("id")
    if pending is not None:
        yield pending


def _claude_text(content: object, where: str) -> str:
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        raise TranscriptError(f"{where}: message.content must be a string or a list of blocks")
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"].strip())
        elif block.get("type") == "tool_use":
            parts.append(summarise_tool_call(str(block.get("name", "tool")), block.get("input")))
    return "\n".join(part for part in parts if part)


# -- Codex ------------------------------------------------------------------------------------


def _read_codex(path: Path, records: list[Record]) -> Iterator[ImportedMessage]:
    for number, record in records:
        where = f"{path} line {number}"
        if record.get("type") in _CODEX_WRAPPERS:
            if record.get("type") != "response_item":
                continue
            item = record.get("payload")
            if not isinstance(item, dict):
                raise TranscriptError(f"{where}: response_item without a payload object")
        else:
            item = record  # an older rollout writes the item itself
        stamp = record.get("timestamp")
        created = _time(stamp, where) if isinstance(stamp, str) else None
        message = _codex_item(item, where, created)
        if message is not None:
            yield message


def _codex_item(
    item: dict[str, Any], where: str, created: datetime | None
) -> ImportedMessage | None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        if role not in ("user", "assistant"):
            return None  # system / developer instructions
        content = item.get("content")
        if not isinstance(content, list):
            raise TranscriptError(f"{where}: message content must be a list")
        text = "\n".join(
            block["text"].strip()
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ).strip()
        if not text or (role == "user" and text.startswith(_CODEX_BOILERPLATE)):
            return None
        return ImportedMessage(role, text, created)
    if kind in ("function_call", "custom_tool_call"):
        raw = item.get("arguments", item.get("input"))
        return ImportedMessage(
            "assistant", summarise_tool_call(str(item.get("name", "tool")), raw), created
        )
    if kind == "local_shell_call":
        action = item.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        return ImportedMessage("assistant", summarise_tool_call("shell", command), created)
    return None  # reasoning, tool output and anything newer


# -- shared -----------------------------------------------------------------------------------


def summarise_tool_call(name: str, arguments: object) -> str:
    """One line: `[tool call] name {arguments…}`, arguments cut to a short preview."""
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError, RecursionError):
            arguments = json.loads(arguments)
    preview = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    preview = " ".join(str(preview).split())
    if len(preview) > TOOL_SUMMARY_LIMIT:
        preview = preview[:TOOL_SUMMARY_LIMIT] + "…"
    return f"[tool call] {name} {preview}".rstrip()


def _time(value: str, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment.astimezone(UTC)  # an offset can carry year 1 or 9999 out of range
    except (ValueError, OverflowError):
        raise TranscriptError(f"{where}: {value!r} is not an ISO 8601 time") from None
    return moment


_READERS: dict[TranscriptFormat, Callable[[Path, list[Record]], Iterator[ImportedMessage]]] = {
    "jsonl": _read_jsonl,
    "claude-code": _read_claude_code,
    "codex": _read_codex,
}
