"""Listing a large memory: descriptions without bodies, and a tree bounded in tokens.

`read_description` reads a file only as far as its frontmatter ends (a few hundred bytes), so
listing 5,000 files never reads 5,000 bodies; the frontmatter is parsed by THE parser
(memory/frontmatter.py), given the head of the file with an empty body. `render_bounded_tree`
is the prompt's external-memory listing: the whole tree while it fits `max_bytes`, else the
files at the top level and one line per folder with its file count, then how many were left
out and the command that lists them all.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from mini_letta.errors import FrontmatterError
from mini_letta.memory.files import MAX_FILE_BYTES, open_plain
from mini_letta.memory.frontmatter import FENCE, decode_memory_bytes, parse_memory_file

HEAD_BYTES = 4_096  # a frontmatter longer than this is read whole
# The system prompt's listing of files outside system/, in UTF-8 bytes: at most ~2,000 tokens
# (a token is at least 3 bytes of text, English or CJK), with no token estimator down here.
EXTERNAL_TREE_BYTES = 6_000


def read_description(path: str | Path, rel: str) -> str:
    """The file's description, read from its frontmatter alone; a problem is described.
    OSError when the file cannot be opened (gone since it was listed)."""
    try:
        with os.fdopen(open_plain(Path(path), rel), "rb") as f:  # a link is named, never read
            head = f.read(HEAD_BYTES)
            if len(head) == HEAD_BYTES and _fence_end(head) is None:
                head += f.read(MAX_FILE_BYTES)
        end = _fence_end(head)
        text = decode_memory_bytes(head if end is None else head[:end], rel)
        return parse_memory_file(text, rel).description
    except FrontmatterError as exc:
        return f"(invalid: {str(exc).removeprefix(rel + ': ')})"
    except UnicodeDecodeError:
        return "(invalid: not UTF-8)"


def _fence_end(data: bytes) -> int | None:
    """The byte after the frontmatter's closing fence line, if `data` holds it."""
    text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if text != data:
        return None  # CRLF files: read whole, so offsets stay exact (rare, and small)
    first = data.find(b"\n")
    if first < 0 or data[:first].rstrip() != FENCE.encode():
        return None  # no frontmatter (or a BOM before it): the parser sees the whole file
    fence = FENCE.encode()
    start = first + 1
    while True:
        newline = data.find(b"\n", start)
        if newline < 0:
            return None
        if data[start:newline].rstrip() == fence:
            return newline + 1
        start = newline + 1


def render_bounded_tree(
    entries: list[tuple[str, str]],
    render: Callable[[list[tuple[str, str]]], list[str]],
    max_bytes: int = EXTERNAL_TREE_BYTES,
) -> str:
    """`render(entries)` lines when they fit; else top-level files and folders with counts."""
    if sum(len(p) + len(d) + 8 for p, d in entries) <= 2 * max_bytes:  # else surely too big
        text = "\n".join(render(entries))
        if _size(text) <= max_bytes:
            return text
    counts = Counter(path.split("/", 1)[0] for path, _ in entries if "/" in path)
    top = [(path, description) for path, description in entries if "/" not in path]
    out: list[str] = []
    used, shown = 0, 0
    for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        line = f"{name}/ — {count} file(s)"
        used += _size(line) + 1
        if used > max_bytes:
            break
        out.append(line)
        shown += count
    for path, description in top:
        line = f"{path} — {description}"
        used += _size(line) + 1
        if used > max_bytes:
            break
        out.append(line)
        shown += 1
    left = len(entries) - shown
    note = f"({len(entries)} files; folders shown with counts"
    note += f", {left} more not listed" if left else ""
    return "\n".join([*out, note + "; `memory` view without a path, or Glob, lists them)"])


def _size(text: str) -> int:
    return len(text.encode("utf-8"))
