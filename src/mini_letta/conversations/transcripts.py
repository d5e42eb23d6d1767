"""Readers for other tools' transcripts: plain JSONL, Claude Code sessions, Codex rollouts.

Each reader turns a file into `ImportedMessage`s in our message shapes: what a person typed is
a user message; the model's text and its tool calls an assistant message (calls as real tool
calls, arguments as JSON text); each tool's output (errors marked) a tool message; a
compaction summary a `summary` message, which the context and reflection never take for the
person's words. Harness text is left out and counted: slash-command and local-command markup,
shell-mode output, "[Request interrupted by user]" (which marks the assistant message it cut as
interrupted), meta lines (caveats, skill bodies, reminders), side chains (sub-agents) and the
instruction preambles Codex adds.

Files are read line by line (a session can be large and still growing), regular files only,
within MAX_TRANSCRIPT_BYTES. A last line cut short (the tool is still writing it) is skipped
with a warning; any other unreadable line is a `TranscriptError` naming the file and line.
`Transcript.source_id` names the session (Claude Code's sessionId, Codex's session id, else
the file), so an import can tell a session it has seen before.

- `jsonl`: one message per line, `{"role": "user"|"assistant", "content": str, "createdAt"}`.
- `claude-code`: `~/.claude/projects/<project>/<session>.jsonl`: entries of `type` user or
  assistant carry `message.content` (a string, or blocks: text, tool_use, tool_result,
  thinking); `summary` / `custom-title` / `ai-title` lines give the title.
- `codex`: a Codex CLI rollout, `{"timestamp", "type", "payload"}` lines (or, in older files,
  the payload alone): response_item message, function_call(_output), custom_tool_call(_output),
  local_shell_call; `compacted` a summary; session_meta the session id. The event_msg
  user_message / agent_message mirror of the same words is read only from a rollout that has
  no response-item messages.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from itertools import chain, islice
from pathlib import Path
from typing import Any, Literal

from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import MiniLettaError
from mini_letta.home import SESSION_FILE_SUFFIX, SUBAGENT_DIR_NAME, SUBAGENT_FILE_PREFIX
from mini_letta.structs import Struct, field

TranscriptFormat = Literal["jsonl", "claude-code", "codex"]
ImportedRole = Literal["user", "assistant", "tool", "summary"]
FORMATS: tuple[str, ...] = ("auto", "jsonl", "claude-code", "codex")
_CODEX_BOILERPLATE = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
)
_CODEX_WRAPPERS = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}
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
_CLAUDE_BOOKKEEPING = {"summary", "custom-title", "ai-title", "file-history-snapshot"}
_INTERRUPTED = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
_COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]*)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>([^<]*)</command-args>")
MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024  # far past any real session; read line by line
_DETECT_RECORDS = 50


class TranscriptError(MiniLettaError):
    """The file is not a transcript of the expected format; the message names the line."""


class EmptyTranscriptError(TranscriptError):
    """A readable transcript with no message in it (a Claude Code file of titles only)."""


class ImportedMessage(Struct, frozen=True):
    role: ImportedRole
    content: str
    created_at: datetime | None  # None: the import time
    tool_calls: tuple[ToolCall, ...] = field(default=())
    tool_call_id: str | None = None  # on a tool message: the call it answers
    name: str | None = None  # on a tool message: the tool
    is_error: bool = False
    stop_reason: str | None = None  # "interrupted" when the person cut it short


class Transcript(Struct, frozen=True):
    format: TranscriptFormat
    messages: tuple[ImportedMessage, ...]
    source_id: str = ""  # "<format>:<session id>" (or the file), what dedupe keys on
    title: str | None = None  # the session's own title line, if it has one
    harness_lines: int = 0  # lines of harness text left out
    warnings: tuple[str, ...] = ()


def load_transcript(path: Path, fmt: str = "auto", within: Path | None = None) -> Transcript:
    """Read and parse the file line by line; a TranscriptError names the file and line. A
    link is followed only to a file inside `within` (by default, the link's own folder)."""
    given = None if fmt == "auto" else _known(fmt)
    warnings: list[str] = []
    records = _records(confined(path, path.parent if within is None else within), warnings)
    head = list(islice(records, _DETECT_RECORDS))
    chosen = given or detect_format(path, head)
    reader = _READERS[chosen](path)
    for number, record in chain(head, records):
        reader.feed(number, record)
    messages = tuple(reader.finish())
    if not messages:
        raise EmptyTranscriptError(f"{path}: no user or assistant messages found ({chosen} format)")
    source = reader.session_id or f"file:{path.resolve()}"
    return Transcript(
        chosen,
        messages,
        f"{chosen}:{source}",
        reader.title,
        reader.harness_lines,
        tuple(warnings),
    )


def _known(fmt: str) -> TranscriptFormat:
    for known in _READERS:
        if fmt == known:
            return known
    raise TranscriptError(f"unknown transcript format {fmt!r} (one of {', '.join(FORMATS)})")


Record = tuple[int, dict[str, Any]]  # (1-based line number, the JSON object)


def _records(path: Path, warnings: list[str]) -> Iterator[Record]:
    """The file's JSON objects, streamed; a torn last line is a warning, not an error."""
    for number, raw, last in _lines(path):
        torn = last and number > 1 and not raw.endswith(b"\n")  # a file still being written
        try:
            line = raw.decode("utf-8")
            if not line.strip():
                continue
            value = json.loads(line)
        except UnicodeDecodeError as exc:
            if torn:
                warnings.append(_torn(path, number))
                return
            raise TranscriptError(
                f"{path} line {number}: not UTF-8 text (byte {exc.start})"
            ) from None
        except ValueError as exc:
            if torn:
                warnings.append(_torn(path, number))
                return
            raise TranscriptError(f"{path} line {number}: not valid JSON ({exc})") from None
        except RecursionError:
            raise TranscriptError(f"{path} line {number}: JSON nested too deeply") from None
        if not isinstance(value, dict):
            raise TranscriptError(f"{path} line {number}: expected a JSON object")
        yield number, value


def _torn(path: Path, number: int) -> str:
    return f"{path} line {number}: an unfinished last line (still being written?) was skipped"


def _lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, bytes, is it the last line) of a regular file, never a FIFO or a device,
    refused by its size before it is read and cut off if it grows past the cap meanwhile."""
    from mini_letta.errors import FrontmatterError
    from mini_letta.memory.files import open_plain

    if path.is_dir() and not path.is_symlink():
        raise TranscriptError(f"{path} is a folder; `import --all` imports every session in it")
    try:
        fd = open_plain(path, str(path), "transcripts")
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except FrontmatterError as exc:
        raise TranscriptError(str(exc)) from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_TRANSCRIPT_BYTES:
            raise TranscriptError(
                f"{path}: is {size} bytes, past the limit of {MAX_TRANSCRIPT_BYTES}"
            )
        read = 0
        number = 0
        pending: bytes | None = None
        for raw in handle:
            read += len(raw)
            if read > MAX_TRANSCRIPT_BYTES:
                raise TranscriptError(f"{path}: grew past the limit of {MAX_TRANSCRIPT_BYTES}")
            if pending is not None:
                yield number, pending, False
            number += 1
            pending = raw
        if pending is not None:
            yield number, pending, True


def detect_format(path: Path, records: list[Record]) -> TranscriptFormat:
    """Guess from the first records' shape; an unknown shape is an error asking for --format.
    A file of Claude Code's bookkeeping lines only (titles, snapshots) is Claude Code's."""
    if not records:
        raise EmptyTranscriptError(f"{path}: the file holds no records")
    bookkeeping = False
    for _, record in records[:_DETECT_RECORDS]:
        kind = record.get("type")
        if kind in _CODEX_WRAPPERS and "payload" in record:
            return "codex"
        if isinstance(record.get("message"), dict) and ("sessionId" in record or "uuid" in record):
            return "claude-code"
        if "role" in record and isinstance(record.get("content"), str):
            return "jsonl"
        if kind == "message" and isinstance(record.get("content"), list):
            return "codex"  # an older rollout: payloads without the wrapper
        bookkeeping = bookkeeping or kind in _CLAUDE_BOOKKEEPING
    if bookkeeping:
        return "claude-code"
    raise TranscriptError(
        f"{path}: cannot tell the transcript format; give --format jsonl, claude-code or codex"
    )


class _Reader:
    """Fed records in file order; `finish` returns the messages."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.out: list[ImportedMessage] = []
        self.session_id: str | None = None
        self.title: str | None = None
        self.harness_lines = 0

    def feed(self, number: int, record: dict[str, Any]) -> None:
        raise NotImplementedError

    def finish(self) -> list[ImportedMessage]:
        return self.out

    def where(self, number: int) -> str:
        return f"{self.path} line {number}"

    def time_of(self, record: dict[str, Any], number: int) -> datetime | None:
        stamp = record.get("timestamp")
        return _time(stamp, self.where(number)) if isinstance(stamp, str) else None

    def interrupt_last(self) -> None:
        """The person cut the last assistant message short."""
        for index in range(len(self.out) - 1, -1, -1):
            if self.out[index].role == "assistant":
                self.out[index] = _with(self.out[index], stop_reason="interrupted")
                return


# -- jsonl ------------------------------------------------------------------------------------


class _JsonlReader(_Reader):
    def feed(self, number: int, record: dict[str, Any]) -> None:
        where = self.where(number)
        role, content = record.get("role"), record.get("content")
        if role not in ("user", "assistant"):
            raise TranscriptError(f'{where}: role must be "user" or "assistant", not {role!r}')
        if not isinstance(content, str):
            raise TranscriptError(f"{where}: content must be a string")
        created = record.get("createdAt")
        if created is not None and not isinstance(created, str):
            raise TranscriptError(f"{where}: createdAt must be an ISO 8601 string")
        moment = _time(created, where) if created else None
        self.out.append(ImportedMessage("user" if role == "user" else "assistant", content, moment))


# -- Claude Code ------------------------------------------------------------------------------


class _ClaudeCodeReader(_Reader):
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
            text = _joined_text(content)
            if text:
                self.out.append(ImportedMessage("summary", text, created))
        elif record.get("isMeta"):
            self.harness_lines += 1
        else:
            self._user(content, created)

    def _assistant(
        self, message: dict[str, Any], content: str | list[Any], created: datetime | None
    ) -> None:
        text = content.strip() if isinstance(content, str) else _joined_text(content)
        calls: list[ToolCall] = []
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call_id = str(block.get("id") or f"toolu_{len(self.tool_names)}")
                name = str(block.get("name") or "tool")
                self.tool_names[call_id] = name
                calls.append(ToolCall(call_id, name, _arguments(block.get("input"))))
        if not text and not calls:
            return  # thinking only
        same = message.get("id") is not None and message.get("id") == self.reply_id
        if same and self.out and self.out[-1].role == "assistant":
            last = self.out[-1]
            joined = "\n".join(part for part in (last.content, text) if part)
            self.out[-1] = _with(last, content=joined, tool_calls=(*last.tool_calls, *calls))
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
                        _result_text(block.get("content")),
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


def _joined_text(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return content.strip()
    parts = [
        block["text"].strip()
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(part for part in parts if part)


def _result_text(content: object) -> str:
    """A tool result's content: a string, or blocks (text kept, an image named)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else json.dumps(content, ensure_ascii=False)
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") in ("image", "input_image"):
            parts.append("[image]")
        elif isinstance(block, str):
            parts.append(block)
    return "\n".join(parts)


def _arguments(value: object) -> str:
    """A call's arguments as JSON text, as our tool calls keep them."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError, RecursionError):
            json.loads(value)
            return value
        return json.dumps({"input": value}, ensure_ascii=False)
    return json.dumps({} if value is None else value, ensure_ascii=False)


# -- Codex ------------------------------------------------------------------------------------


class _CodexReader(_Reader):
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
        if kind in _CODEX_WRAPPERS:
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
                arguments = _arguments(item.get("arguments", item.get("input")))
            self.tool_names[call_id] = name
            call = ToolCall(call_id, name, arguments)
            last = self.out[-1] if self.out else None
            if last is not None and last.role == "assistant" and last.stop_reason is None:
                self.out[-1] = _with(last, tool_calls=(*last.tool_calls, call))
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
            self.out[-1] = _with(last, content=f"{last.content}\n{text}".strip())
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
        text = _result_text(output.get("content"))
        return text, output.get("success") is False
    return _result_text(output), False


# -- shared -----------------------------------------------------------------------------------


def _with(message: ImportedMessage, **changes: Any) -> ImportedMessage:
    from mini_letta.structs import replace

    return replace(message, **changes)


def _time(value: str, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment.astimezone(UTC)  # an offset can carry year 1 or 9999 out of range
    except (ValueError, OverflowError):
        raise TranscriptError(f"{where}: {value!r} is not an ISO 8601 time") from None
    return moment


class SessionFiles(Struct, frozen=True):
    files: tuple[Path, ...]
    refused: tuple[str, ...]  # one line per link that points outside the folder


def find_session_files(folder: Path) -> SessionFiles:
    """Session files under `folder` (a Claude Code projects folder or one project, a Codex
    sessions folder): `*.jsonl`, sub-agent transcripts left out, in name order. Links are
    never followed out of `folder`: one pointing outside is refused, one line each."""
    root = folder.resolve()
    found: list[Path] = []
    refused: list[str] = []
    for here, dirs, files in os.walk(root, followlinks=False):
        base = Path(here)
        for name in list(dirs):
            if (base / name).is_symlink() and not _inside(base / name, root):
                refused.append(_outside(base / name, folder))
        dirs[:] = sorted(
            d for d in dirs if d != SUBAGENT_DIR_NAME and not d.startswith(".")
        )  # a link to a folder is not walked (os.walk), inside or out
        for name in sorted(files):
            path = base / name
            if not name.endswith(SESSION_FILE_SUFFIX) or name.startswith(SUBAGENT_FILE_PREFIX):
                continue
            if path.is_symlink() and not _inside(path, root):
                refused.append(_outside(path, folder))
                continue
            found.append(path)
    return SessionFiles(tuple(sorted(found)), tuple(refused))


def confined(path: Path, folder: Path) -> Path:
    """`path` itself, or the file a link there points at when that is inside `folder`; a
    link out of `folder` is a TranscriptError (an import reads only what was chosen)."""
    if not path.is_symlink():
        return path
    if not _inside(path, folder.resolve()):
        raise TranscriptError(_outside(path, folder))
    return path.resolve()


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a link loop
        return False


def _outside(path: Path, folder: Path) -> str:
    return (
        f"{path} is a link to something outside {folder}; refused (import the file it points "
        "at by its own path)"
    )


_READERS: dict[TranscriptFormat, Callable[[Path], _Reader]] = {
    "jsonl": _JsonlReader,
    "claude-code": _ClaudeCodeReader,
    "codex": _CodexReader,
}
