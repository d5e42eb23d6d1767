"""Memory paths: the one check that a path named by a model or a person stays inside memory.

A memory path is relative, uses '/', ends in `.md`, has no empty, '.', '..' or hidden segment
(so never `.git`), puts skills in folders (`skills/<name>/SKILL.md`), and resolves to the same
place without following a symlink, so every write lands on a real file inside the repo. Its
names fit every file system we run on (each segment at most 255 bytes of UTF-8, the whole
path at most 1024), so an over-long name is refused here, never as a raw OSError on write.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mini_letta.errors import MemoryEditError

MAX_SEGMENT_BYTES = 255  # NAME_MAX on Linux and macOS
MAX_PATH_BYTES = 1024  # leaves room under PATH_MAX for the memory folder (or a worktree)


def resolve_memory_path(root: Path, path: object, name: str = "path") -> str:
    """A memory-relative POSIX path, refused unless it stays a real file path inside `root`."""
    if not isinstance(path, str) or not path.strip():
        raise MemoryEditError(f"{name!r} must be a memory path such as system/notes.md")
    text = path.strip()
    if "\0" in text:
        raise MemoryEditError(f"{name!r} contains a NUL byte")
    if "\\" in text:
        raise MemoryEditError(f"{name!r} must use '/' between folders, not '\\'")
    if text.startswith(("/", "~")) or (len(text) > 1 and text[1] == ":"):
        raise MemoryEditError(
            f"{name!r} must be relative to the memory folder (like system/notes.md), not {text!r}"
        )
    _check_length(text, name)
    parts = text.split("/")
    for part in parts:
        if part in ("", ".", ".."):
            raise MemoryEditError(
                f"{name} {text!r} has an empty, '.' or '..' segment; paths stay inside memory"
            )
        if part.startswith("."):
            raise MemoryEditError(f"{name} {text!r}: hidden names (like .git) are not memory")
    if not text.endswith(".md") or parts[-1] == ".md":
        raise MemoryEditError(
            f"{name} {text!r} must be a markdown file ending in .md (e.g. {text}.md)"
        )
    if parts[0] == "skills" and len(parts) == 2:
        raise MemoryEditError(f"{name} {text!r}: skills are folders, use skills/<name>/SKILL.md")
    if _through_link(root, parts):
        raise MemoryEditError(
            f"{name} {text!r} goes through a symlink; memory paths must be real files inside "
            "the memory folder"
        )
    return text


def _through_link(root: Path, parts: list[str]) -> bool:
    """Whether a segment of the path below `root` that exists is a symbolic link: with no
    empty, '.' or '..' segment, that is exactly when resolving it would land elsewhere (one
    lstat a segment, instead of resolving every folder above memory twice)."""
    current = os.fspath(root)
    for part in parts:
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except OSError:  # missing (a file to create) or unreadable: nothing to follow there
            return False
    return False


def _check_length(text: str, name: str) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        raise MemoryEditError(
            f"{name} is {size} bytes long, longer than {MAX_PATH_BYTES} bytes; "
            "use shorter folder and file names"
        )
    for part in text.split("/"):
        part_size = len(part.encode("utf-8", "surrogatepass"))
        if part_size > MAX_SEGMENT_BYTES:
            raise MemoryEditError(
                f"{name} segment {part[:40]!r}… is {part_size} bytes, longer than "
                f"{MAX_SEGMENT_BYTES} bytes; use a shorter name"
            )
