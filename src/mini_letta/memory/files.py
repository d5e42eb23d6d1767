"""Reading memory files from a working tree: plain files only, never through a link, bounded.

Memory files are plain UTF-8 text. Anything can plant something else in a working tree (a sync
remote, a person's `git commit`, a copied folder): a symbolic link to `/etc/passwd` or
`/dev/zero`, a FIFO, a file of hundreds of megabytes. Every reader of memory (the tree, validate,
export, the MCP and reflection tools, the gate) goes through `read_memory_bytes`, which opens
without following a link, refuses anything but a regular file and reads at most the size limit,
and through `memory_file_paths`, which lists without entering a linked folder. What it refuses
is a FrontmatterError naming the path, the same kind as a file that is not UTF-8.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from mini_letta.errors import FrontmatterError
from mini_letta.memory.frontmatter import decode_memory_bytes

MAX_FILE_CHARS = 100_000  # the memory tool's limit on one file
MAX_FILE_BYTES = 4 * MAX_FILE_CHARS  # UTF-8 takes at most 4 bytes a character
MAX_MEMORY_FILES = 1_000  # beyond this the memory no longer fits any model's context

_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_LINK = "is a symbolic link; memory files are plain files"


def read_memory_bytes(root: Path, rel: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `root/rel`: a regular file of at most `limit` bytes, never a link's target.

    FileNotFoundError when it is absent; FrontmatterError for a link, a folder, a device or
    FIFO, or a file past the limit.
    """
    return read_plain_bytes(Path(root) / rel, rel, limit)


def open_plain(target: Path, name: str, kind: str = "memory files") -> int:
    """A descriptor open for reading on `target`, a regular file and never a link's target
    (FrontmatterError otherwise, naming `name`); the caller closes it."""
    if target.is_symlink():  # O_NOFOLLOW covers the race; this names the common case
        raise FrontmatterError(name, _LINK)
    try:
        fd = os.open(target, _FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FrontmatterError(
                name, "is a symbolic link; memory files are plain files"
            ) from exc
        if exc.errno in (errno.EISDIR, errno.ENOTDIR) and target.is_dir():
            raise FrontmatterError(name, "is a folder, not a memory file") from exc
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FrontmatterError(name, f"is not a regular file; {kind} are plain text")
    return fd


def read_plain_bytes(
    target: Path, name: str, limit: int = MAX_FILE_BYTES, kind: str = "memory files"
) -> bytes:
    """`read_memory_bytes` for any path (`name` is how errors call it, `kind` what it holds)."""
    fd = open_plain(target, name, kind)
    try:
        info = os.fstat(fd)
        if info.st_size > limit:
            raise FrontmatterError(name, f"is {info.st_size} bytes, past the limit of {limit}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while being read
            raise FrontmatterError(name, f"is larger than the limit of {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_memory_text(root: Path, rel: str) -> str:
    """`read_memory_bytes` decoded as memory text (UTF-8, no NUL)."""
    return decode_memory_bytes(read_memory_bytes(root, rel), rel)


def memory_file_paths(root: Path, under: str = "") -> Iterator[str]:
    """Memory-relative paths of the `.md` entries under `root` (or its folder `under`), sorted by
    folder; hidden names are skipped and a linked folder is never entered. A linked or odd
    *file* is listed, so its reader can name the problem."""
    base = Path(root)
    start = base / under if under else base
    if start.is_symlink() or not start.is_dir():
        return
    for folder, dirs, files in os.walk(start):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(folder, d))
        )
        rel_folder = Path(folder).relative_to(base).as_posix()
        prefix = "" if rel_folder == "." else rel_folder + "/"
        for name in sorted(files):
            if not name.startswith(".") and name.endswith(".md"):
                yield prefix + name
