"""Whether paths are unchanged since HEAD, from git's own files when they can say so for sure.

The memory tool refuses to touch a file with uncommitted changes; asking `git status` was one
git process per edit. Git's files answer it when: HEAD's tree (loose objects, as after a recent
commit) holds the path with the same object as the index's only entry for it, and the file's
stat data is what the index recorded, from before the index was written (git's "racily clean"
rule: a file changed in the same instant as the index is not trusted); or none of HEAD, the
index and the disk has the path. Anything else (a packed object, an index version or extension
this does not read, a sparse or split index, a stat that moved, a file git may ignore) is
`None`: ask git, which stays the judge.
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Sequence
from pathlib import Path

from mini_letta.memory.gitfiles import (
    git_dirs,
    loose_commit_tree,
    read_head,
    read_loose_object,
    tree_entries,
)

_HEADER = struct.Struct(">4sII")
_STAT = struct.Struct(">10I")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size
_EXTENDED = 0x4000
_STAGE = 0x3000
_U32 = 0xFFFFFFFF


def unchanged_by_files(work_tree: Path, paths: Sequence[str]) -> bool | None:
    """True when git's files show every path unchanged since HEAD (as `git status -- paths`
    would list none of them); None when only git can tell."""
    dirs = git_dirs(work_tree)
    head = read_head(work_tree)
    if dirs is None or head is None or len(head) != 40:
        return None  # no commit yet, unusual HEAD, or sha256: ask git
    index_file = dirs[0] / "index"
    try:
        data = index_file.read_bytes()
        written = index_file.stat().st_mtime_ns
    except OSError:
        return None
    try:
        entries = _index_entries(data, set(paths))
        if entries is None:
            return None
        for path in paths:
            if _path_unchanged(work_tree, dirs[1], head, path, entries.get(path), written) is None:
                return None
    except (struct.error, ValueError):  # a file cut short or not what git writes: ask git
        return None
    return True


def _path_unchanged(
    work_tree: Path,
    common: Path,
    head: str,
    path: str,
    entry: tuple[tuple[int, ...], str, int] | None,
    index_written: int,
) -> bool | None:
    committed = _blob_at(common, head, path)
    if committed is None:
        return None
    try:
        info = os.lstat(work_tree / path)
    except FileNotFoundError:
        info = None
    except OSError:
        return None
    if committed == ("", 0) and entry is None:
        return True if info is None else None  # an untracked file may be ignored: ask git
    if entry is None or info is None or not stat.S_ISREG(info.st_mode):
        return None
    fields, sha, flags = entry
    if flags & _STAGE or (sha, fields[6]) != committed:
        return None  # a conflict, or a staged change
    seen = (
        int(info.st_ctime) & _U32, info.st_ctime_ns % 1_000_000_000,
        int(info.st_mtime) & _U32, info.st_mtime_ns % 1_000_000_000,
        info.st_ino & _U32, info.st_uid & _U32, info.st_gid & _U32, info.st_size & _U32,
    )  # fmt: skip
    recorded = (*fields[0:4], fields[5], fields[7], fields[8], fields[9])
    executable = bool(info.st_mode & 0o100)
    if seen != recorded or executable != (fields[6] == 0o100755):
        return None
    return True if info.st_mtime_ns < index_written else None  # racily clean: ask git


def _index_entries(
    data: bytes, wanted: set[str]
) -> dict[str, tuple[tuple[int, ...], str, int]] | None:
    """(stat fields, sha, flags) of the index entries of `wanted`; None for an index this does
    not read (not version 2 or 3, a path in more than one stage, a split or sparse index)."""
    if len(data) < _HEADER.size:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    found: dict[str, tuple[tuple[int, ...], str, int]] = {}
    position = _HEADER.size
    for _ in range(count):
        start = position
        fields = _STAT.unpack_from(data, position)
        position += _STAT.size
        sha = data[position : position + 20].hex()
        (flags,) = struct.unpack_from(">H", data, position + 20)
        position += 22
        if flags & _EXTENDED:
            if version < 3:
                return None
            (extended,) = struct.unpack_from(">H", data, position)
            position += 2
            if extended:  # intent-to-add or skip-worktree: git knows better
                return None
        end = data.index(b"\0", position)
        name = data[position:end].decode("utf-8", "surrogateescape")
        position = start + ((end - start) // 8 + 1) * 8  # NUL-padded to a multiple of eight
        if stat.S_ISDIR(fields[6]):
            return None  # a sparse index's folder entry
        if name in wanted:
            if name in found:
                return None  # more than one stage: a conflict
            found[name] = (fields, sha, flags)
    while position + 8 <= len(data) - 20:  # extensions, then the index's own checksum
        signature, size = (
            data[position : position + 4],
            int.from_bytes(data[position + 4 : position + 8]),
        )
        if signature in (b"link", b"sdir"):
            return None  # a split index keeps entries elsewhere; a sparse one folds them
        position += 8 + size
    return found


def _blob_at(common: Path, commit: str, path: str) -> tuple[str, int] | None:
    """(blob sha, mode) of `path` in `commit`'s tree, ("", 0) when it has none there; None
    when an object on the way is not a loose one (only git can read a pack)."""
    sha = loose_commit_tree(common, commit)
    if sha is None:
        return None
    parts = path.split("/")
    for depth, part in enumerate(parts):
        tree = read_loose_object(common, sha)
        if tree is None or tree[0] != b"tree":
            return None
        entry = _tree_entry(tree[1], part.encode("utf-8", "surrogateescape"))
        if entry is None:
            return "", 0
        mode, sha = entry
        is_last = depth == len(parts) - 1
        if is_last:
            return (sha, int(mode, 8)) if mode in (b"100644", b"100755") else None
        if mode != b"40000":
            return "", 0  # a file where the path needs a folder: the path is not there
    return None


def _tree_entry(body: bytes, name: bytes) -> tuple[bytes, str] | None:
    found = ((mode, sha) for mode, entry, sha in tree_entries(body) if entry == name)
    return next(found, None)
