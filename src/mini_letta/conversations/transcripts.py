"""Reading other tools' transcripts: plain JSONL, Claude Code sessions, Codex rollouts.

Each format's reader (claude_code.py, codex.py, the JSONL one here) turns a file into
`ImportedMessage`s in our message shapes: what a person typed is a user message; the model's
text and its tool calls an assistant message; each tool's output (errors marked) a tool
message; a compaction summary a `summary` message, which the context and reflection never
take for the person's words; harness text is left out and counted.

Files are read line by line (a session can be large and still growing), regular files only,
within MAX_TRANSCRIPT_BYTES. A last line cut short (the tool is still writing it) is skipped
with a warning; any other unreadable line is a `TranscriptError` naming the file and line.
`Transcript.source_id` names the session (Claude Code's sessionId, Codex's session id, else
the file), so an import can tell a session it has seen before. A link is followed only to a
file inside the folder it was found in.

- `jsonl`: one message per line, `{"role": "user"|"assistant", "content": str, "createdAt"}`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from itertools import chain, islice
from pathlib import Path
from typing import Any

from mini_letta.conversations.claude_code import CLAUDE_BOOKKEEPING, ClaudeCodeReader
from mini_letta.conversations.codex import CODEX_WRAPPERS, CodexReader
from mini_letta.conversations.transcript_base import (
    EmptyTranscriptError,
    ImportedMessage,
    Reader,
    TranscriptError,
    TranscriptFormat,
    parse_time,
)
from mini_letta.home import SESSION_FILE_SUFFIX, SUBAGENT_DIR_NAME, SUBAGENT_FILE_PREFIX
from mini_letta.structs import Struct

FORMATS: tuple[str, ...] = ("auto", "jsonl", "claude-code", "codex")

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024  # far past any real session; read line by line
_DETECT_RECORDS = 50


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
        if kind in CODEX_WRAPPERS and "payload" in record:
            return "codex"
        if isinstance(record.get("message"), dict) and ("sessionId" in record or "uuid" in record):
            return "claude-code"
        if "role" in record and isinstance(record.get("content"), str):
            return "jsonl"
        if kind == "message" and isinstance(record.get("content"), list):
            return "codex"  # an older rollout: payloads without the wrapper
        bookkeeping = bookkeeping or kind in CLAUDE_BOOKKEEPING
    if bookkeeping:
        return "claude-code"
    raise TranscriptError(
        f"{path}: cannot tell the transcript format; give --format jsonl, claude-code or codex"
    )


# -- jsonl ------------------------------------------------------------------------------------


class _JsonlReader(Reader):
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
        moment = parse_time(created, where) if created else None
        self.out.append(ImportedMessage("user" if role == "user" else "assistant", content, moment))


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


_READERS: dict[TranscriptFormat, Callable[[Path], Reader]] = {
    "jsonl": _JsonlReader,
    "claude-code": ClaudeCodeReader,
    "codex": CodexReader,
}
