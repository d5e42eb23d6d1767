"""The file tools: Read (numbered lines, ranges, capped), Write, Edit (exact unique match).

Paths go through `tools.paths` (working directory and memory only, symlinks resolved; memory is
read-only here; `.git` and mini-letta's state are never written). Only regular files are
opened. Binary files are refused by Read and Edit with a result that says so. Edit keeps the
file's line endings: a model's `\\n` matches a CRLF file too. Every failure is a
`ToolInputError` the runner turns into a result the model can read. When an editor drives the
session (`ToolContext.editor_files`), files in the working directory are read and written
through it, after the same checks, so unsaved changes are seen and edits show in the editor.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mini_letta.llm.base import ToolSpec
from mini_letta.storage.fields import optional_int, require_str
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult
from mini_letta.tools.paths import display_path, resolve_tool_path

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
SNIFF_BYTES = 8192


class BinaryFileError(ToolInputError):
    pass


class MissingFileError(ToolInputError):
    pass


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


_PATH = {"type": "string", "description": "relative to the working directory"}


def _existing_file(raw: str, ctx: ToolContext, *, for_edit: bool = False) -> Path:
    path = resolve_tool_path(raw, ctx, for_edit=for_edit)
    if not path.exists():
        raise MissingFileError(f"{raw} does not exist (Glob finds files by pattern)")
    if path.is_dir():
        raise ToolInputError(f"{raw} is a directory, not a file (Glob lists its files)")
    if not path.is_file():
        raise ToolInputError(f"{raw} is not a regular file (a FIFO, socket or device)")
    return path


def _in_editor(path: Path, ctx: ToolContext) -> bool:
    return ctx.editor_files is not None and path.is_relative_to(ctx.cwd.resolve())


def _editor_reader(path: Path, ctx: ToolContext) -> Callable[[Path], str] | None:
    return ctx.editor_files.read_text if ctx.editor_files and _in_editor(path, ctx) else None


def _editor_writer(path: Path, ctx: ToolContext) -> Callable[[Path, str], None] | None:
    return ctx.editor_files.write_text if ctx.editor_files and _in_editor(path, ctx) else None


def _refuse_binary(head: bytes, raw: str) -> None:
    if b"\x00" in head:
        raise BinaryFileError(
            f"{raw} looks like a binary file (it contains NUL bytes); "
            "only text files can be read or edited"
        )


class ReadTool:
    spec = ToolSpec(
        name="Read",
        description=(
            "Read a text file as numbered lines. offset is the first line (1-based), limit the "
            f"number of lines (default {MAX_LINES})."
        ),
        parameters=_schema(
            {
                "path": _PATH,
                "offset": {"type": "integer", "minimum": 1},
                "limit": {"type": "integer", "minimum": 1},
            },
            ["path"],
        ),
    )
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = require_str(args, "path", non_empty=True)
        offset = optional_int(args, "offset")
        limit = optional_int(args, "limit")
        offset = 1 if offset is None else offset  # null means "not given"
        limit = MAX_LINES if limit is None else limit
        if offset < 1 or limit < 1:
            raise ToolInputError("'offset' and 'limit' must be at least 1")
        path = _existing_file(raw, ctx)
        read_text = _editor_reader(path, ctx)
        if read_text is not None:  # the editor's buffer, unsaved changes included
            data = read_text(path).encode("utf-8")
            _refuse_binary(data[:SNIFF_BYTES], raw)
            return _numbered_lines(io.BytesIO(data), raw, offset, limit, ctx.output_cap)
        with path.open("rb") as handle:
            _refuse_binary(handle.read(SNIFF_BYTES), raw)
            handle.seek(0)
            return _numbered_lines(handle, raw, offset, limit, ctx.output_cap)


def _numbered_lines(handle: Any, raw: str, offset: int, limit: int, cap: int) -> ToolResult:
    out: list[str] = []
    size = 0
    number = 0
    more = False
    for number, line in enumerate(handle, start=1):  # noqa: B007 - number is used after the loop
        if number < offset:
            continue
        text = line.decode("utf-8", errors="replace").rstrip("\r\n")
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " … [line truncated]"
        entry = f"{number:>6}\t{text}"
        if len(out) >= limit or size + len(entry) + 1 > cap - 200:
            more = True
            break
        out.append(entry)
        size += len(entry) + 1
    if not out:
        if number == 0:
            return ToolResult(f"{raw} is empty")
        raise ToolInputError(f"offset {offset} is past the end of {raw} ({number} lines)")
    last = offset + len(out) - 1
    if more:
        out.append(f"[lines {offset}-{last} shown; more follow — continue with offset={last + 1}]")
    return ToolResult("\n".join(out))


class WriteTool:
    spec = ToolSpec(
        name="Write",
        description="Create or overwrite a file with the given content (parents are created).",
        parameters=_schema({"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
    )
    kind: ToolKind = "edit"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = require_str(args, "path", non_empty=True)
        content = require_str(args, "content")
        path = resolve_tool_path(raw, ctx, for_edit=True)
        if path.is_dir():
            raise ToolInputError(f"{raw} is a directory; give a file path")
        existed = path.exists()
        if existed and not path.is_file():
            raise ToolInputError(f"{raw} is not a regular file (a FIFO, socket or device)")
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8")
        write_text = _editor_writer(path, ctx)
        if write_text is not None:
            write_text(path, content)
        else:
            path.write_bytes(data)
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        verb = "Overwrote" if existed else "Created"
        return ToolResult(f"{verb} {display_path(path, ctx)} ({lines} lines, {len(data)} bytes)")


class EditTool:
    spec = ToolSpec(
        name="Edit",
        description=(
            "Replace old_string with new_string in a file. old_string must match exactly and "
            "once, unless replace_all is true."
        ),
        parameters=_schema(
            {
                "path": _PATH,
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean"},
            },
            ["path", "old_string", "new_string"],
        ),
    )
    kind: ToolKind = "edit"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = require_str(args, "path", non_empty=True)
        old = require_str(args, "old_string", non_empty=True)
        new = require_str(args, "new_string")
        replace_all = args.get("replace_all", False)
        if not isinstance(replace_all, bool):
            raise ToolInputError("'replace_all' must be true or false")
        if old == new:
            raise ToolInputError("old_string and new_string are the same; nothing would change")
        path = _existing_file(raw, ctx, for_edit=True)
        read_text = _editor_reader(path, ctx)
        data = read_text(path).encode("utf-8") if read_text is not None else path.read_bytes()
        _refuse_binary(data[:SNIFF_BYTES], raw)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BinaryFileError(f"{raw} is not UTF-8 text; Edit changes text files only") from exc
        count = text.count(old)
        if count == 0 and "\r\n" in text and "\n" in old:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
            count = text.count(old)
        if count == 0:
            raise ToolInputError(
                f"old_string was not found in {raw} (it must match exactly, whitespace included; "
                "Read the file to copy it)"
            )
        if count > 1 and not replace_all:
            raise ToolInputError(
                f"old_string occurs {count} times in {raw}; add surrounding lines to make it "
                "unique, or set replace_all"
            )
        first_line = text[: text.index(old)].count("\n") + 1
        updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
        write_text = _editor_writer(path, ctx)
        if write_text is not None:
            write_text(path, updated)
        else:
            path.write_bytes(updated.encode("utf-8"))
        where = f"{count} occurrences" if count > 1 else f"1 occurrence at line {first_line}"
        return ToolResult(f"Edited {display_path(path, ctx)}: replaced {where}")
