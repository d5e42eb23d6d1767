"""The gate's diff made from the files themselves, where git's answer is certain.

`git diff --no-renames -U0 base tip` is one git process per run; `hunks.parse_diff` reads it.
A run knows every file it touched as it was before (its first edit's look) and as it is at the
tip, so the same `FileDiff`s follow from those bytes wherever git could only say one thing.
git's diff (xdiff, Myers) first trims the lines both versions share at the top and then at
the bottom, and diffs what is left; when the two middles share no line, that is one hunk that
removes the old middle and adds the new one (lines are equal when their bytes are, end of line
included). git then slides a hunk up or down past lines that repeat its own and picks a place
by indentation (its indent heuristic): a hunk that could slide is left to git, as are a binary
file (a NUL byte), a changed file mode, a path git would quote, and middles with a line in
common (where git's choice of alignment is its own). None means: ask git.
"""

from __future__ import annotations

from collections.abc import Mapping

from mini_letta.reflection.gate.hunks import FileDiff, Hunk

FileState = tuple[bytes, bool] | None  # (content, executable), None when there is no file
_MAX_BYTES = 8 << 20  # bigger than any memory file: git decides what to do with it


class _AskGit(Exception):
    """git's answer could differ from the one made here."""


def diff_files(sides: Mapping[str, tuple[FileState, FileState]]) -> list[FileDiff] | None:
    """`parse_diff(git diff --no-renames -U0 ...)` for files given as (before, after), in
    git's order (by path), unchanged files left out; None when only git can say."""
    diffs: list[FileDiff] = []
    try:
        for path in sorted(sides, key=lambda p: p.encode("utf-8", "surrogateescape")):
            before, after = sides[path]
            found = _file_diff(path, before, after)
            if found is not None:
                diffs.append(found)
    except _AskGit:
        return None
    return diffs


def _file_diff(path: str, before: FileState, after: FileState) -> FileDiff | None:
    if before == after:
        return None
    if any(ord(c) < 0x20 or c in '"\x7f' for c in path) or " b/" in path:
        raise _AskGit  # git quotes the name, or its header would read back another one
    if before is not None and after is not None and before[1] != after[1]:
        raise _AskGit  # a mode change: git prints it beside the hunks
    old = _records(before)
    new = _records(after)
    if before is None:
        return FileDiff(path, "added", [Hunk(0, 1, [], _texts(new))] if new else [])
    if after is None:
        return FileDiff(path, "deleted", [Hunk(1, 0, _texts(old), [])] if old else [])
    top = 0
    limit = min(len(old), len(new))
    while top < limit and old[top] == new[top]:
        top += 1
    bottom = 0
    while bottom < limit - top and old[-1 - bottom] == new[-1 - bottom]:
        bottom += 1
    removed = old[top : len(old) - bottom]
    added = new[top : len(new) - bottom]
    if (
        set(removed) & set(added)
        or _slides(old, top, len(removed))
        or _slides(new, top, len(added))
    ):
        raise _AskGit
    hunk = Hunk(
        top + 1 if removed else top, top + 1 if added else top, _texts(removed), _texts(added)
    )
    return FileDiff(path, "modified", [hunk])


def _records(state: FileState) -> list[bytes]:
    """A file's lines as git compares them: each with its line feed, the last one maybe not."""
    if state is None:
        return []
    data = state[0]
    if b"\0" in data or len(data) > _MAX_BYTES:
        raise _AskGit  # binary to git, or too big to be worth it
    lines = data.split(b"\n")
    records = [line + b"\n" for line in lines[:-1]]
    if lines[-1]:
        records.append(lines[-1])
    return records


def _slides(lines: list[bytes], start: int, count: int) -> bool:
    """Whether git could move the changed lines `[start, start + count)` up or down a line:
    the line above equals their last, or the line below their first."""
    if count == 0:
        return False  # nothing on this side to move
    end = start + count
    up = start > 0 and lines[start - 1] == lines[end - 1]
    down = end < len(lines) and lines[end] == lines[start]
    return up or down


def _texts(records: list[bytes]) -> list[str]:
    """Lines as the gate reads git's output: decoded, without their line feed."""
    return [record.removesuffix(b"\n").decode("utf-8", "replace") for record in records]
