"""Grep (a regex over file contents) and Glob (file names by pattern), .gitignore respected.

Both search a folder inside the working directory or memory (default: the working directory),
list its files through `tools.filelist`, keep only those Read could read (`tools.paths`: no
symlink out, no FIFO), and report paths relative to the working directory.
Results are bounded (matches, characters per line, total output); binary and very large files
are skipped by Grep.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mini_letta.llm.base import ToolSpec
from mini_letta.storage.fields import optional_str, require_str
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult
from mini_letta.tools.filelist import FileList, glob_to_regex, list_files
from mini_letta.tools.output import cap_text
from mini_letta.tools.paths import Confinement, display_path, resolve_tool_path

MAX_MATCHES = 200
MAX_GLOB_RESULTS = 500
MAX_MATCH_CHARS = 300
MAX_GREP_FILE_BYTES = 5_000_000
Reachable = tuple[str, str]  # (path relative to the search root, real path)


def _search_root(args: dict[str, Any], ctx: ToolContext) -> tuple[Path, list[Path] | None]:
    """The folder to search, or (for a file path) its folder and just that file."""
    raw = optional_str(args, "path") or "."
    path = resolve_tool_path(raw, ctx)
    if not path.exists():
        raise ToolInputError(f"{raw} does not exist")
    if path.is_file():
        return path.parent, [path]
    return path, None


def _files(root: Path, only: list[Path] | None, ctx: ToolContext) -> tuple[list[Reachable], bool]:
    """(rel to root, real path) of each file to look at; only what Read could read."""
    if only is not None:
        return [(path.name, str(path)) for path in only], False
    listing: FileList = list_files(root)
    return list(Confinement.of(ctx).files(root, listing.paths)), listing.truncated


class GrepTool:
    spec = ToolSpec(
        name="Grep",
        description=(
            "Search file contents with a Python regex; returns path:line: text. glob filters "
            "file names (e.g. *.py); .gitignore'd files are skipped."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "folder or file (default .)"},
                "glob": {"type": "string"},
                "ignore_case": {"type": "boolean"},
            },
            "required": ["pattern"],
        },
    )
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = require_str(args, "pattern", non_empty=True)
        ignore_case = args.get("ignore_case", False)
        if not isinstance(ignore_case, bool):
            raise ToolInputError("'ignore_case' must be true or false")
        try:
            regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ToolInputError(f"pattern is not a valid regular expression ({exc})") from exc
        name_filter = _name_filter(optional_str(args, "glob"))
        root, only = _search_root(args, ctx)
        files, truncated = _files(root, only, ctx)
        lines: list[str] = []
        shown = _shown_under(root, ctx)
        for rel, real in files:
            if name_filter is not None and not name_filter(rel):
                continue
            if _grep_file(real, regex, shown(rel), lines):
                break
        if not lines:
            return ToolResult(f"No matches for {pattern!r}.")
        if len(lines) >= MAX_MATCHES:
            lines.append(f"[stopped at {MAX_MATCHES} matches; narrow the pattern, path or glob]")
        if truncated:
            lines.append("[only the first files of a very large folder were searched]")
        return ToolResult(cap_text("\n".join(lines), ctx.output_cap))


def _name_filter(raw: str | None) -> Any:
    if not raw:
        return None
    regex = glob_to_regex(raw if "/" in raw else "**/" + raw)
    return lambda rel: regex.match(rel) is not None


def _shown_under(root: Path, ctx: ToolContext) -> Callable[[str], str]:
    """How a path relative to `root` is shown: relative to the working directory if inside it."""
    base = display_path(root, ctx)
    return lambda rel: rel if base == "." else f"{base}/{rel}"


def _grep_file(path: str, regex: re.Pattern[str], shown: str, lines: list[str]) -> bool:
    """Append matches; True once the match limit is reached."""
    try:
        if os.stat(path).st_size > MAX_GREP_FILE_BYTES:
            return False
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    if b"\x00" in data[:8192]:
        return False
    text = data.decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if regex.search(line):
            snippet = line.strip()
            if len(snippet) > MAX_MATCH_CHARS:
                snippet = snippet[:MAX_MATCH_CHARS] + "…"
            lines.append(f"{shown}:{number}: {snippet}")
            if len(lines) >= MAX_MATCHES:
                return True
    return False


class GlobTool:
    spec = ToolSpec(
        name="Glob",
        description=(
            "Find files by name pattern, e.g. **/*.py (* stays within a folder, ** crosses "
            "folders); .gitignore'd files are skipped."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "folder to search (default .)"},
            },
            "required": ["pattern"],
        },
    )
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = require_str(args, "pattern", non_empty=True).strip().removeprefix("./")
        root, only = _search_root(args, ctx)
        if only is not None:
            raise ToolInputError("'path' must be a folder for Glob")
        regex = glob_to_regex(pattern)
        files, _ = _files(root, None, ctx)
        found = [rel for rel, _ in files if regex.match(rel)]
        if not found:
            return ToolResult(f"No files match {pattern!r}.")
        shown = list(map(_shown_under(root, ctx), found[:MAX_GLOB_RESULTS]))
        if len(found) > MAX_GLOB_RESULTS:
            shown.append(f"[{len(found) - MAX_GLOB_RESULTS} more; narrow the pattern]")
        return ToolResult(cap_text("\n".join(shown), ctx.output_cap))
