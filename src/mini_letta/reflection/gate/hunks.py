"""A reflection branch's diff as the gate reads it: files, their hunks, added and removed lines.

One reader for `git diff --no-renames -U0` output. A hunk keeps its removed and added lines
together, so a rewritten line can be compared with the line it replaces; frontmatter lines
(`---` … `---` at the top of a file) are told apart from the body, which holds the facts.
"""

from __future__ import annotations

import re

from mini_letta.structs import Struct, field

_HEADER = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


class Hunk(Struct):
    old_start: int  # 1-based line numbers in the old and new file
    new_start: int
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


class FileDiff(Struct):
    path: str
    status: str = "modified"  # added, modified, deleted
    hunks: list[Hunk] = field(default_factory=list)
    frontmatter: int = 0  # lines of frontmatter at the top of the new file (old, if deleted)

    @property
    def added(self) -> list[str]:
        return [line for hunk in self.hunks for line in hunk.added]

    @property
    def removed(self) -> list[str]:
        return [line for hunk in self.hunks for line in hunk.removed]

    def body_added(self) -> list[tuple[Hunk, str]]:
        """Added lines below the frontmatter, each with its hunk."""
        return [
            (hunk, line)
            for hunk in self.hunks
            for offset, line in enumerate(hunk.added)
            if hunk.new_start + offset > self.frontmatter
        ]

    def body_removed(self) -> list[tuple[Hunk, str]]:
        return [
            (hunk, line)
            for hunk in self.hunks
            for offset, line in enumerate(hunk.removed)
            if hunk.old_start + offset > self.frontmatter
        ]


def parse_diff(text: str) -> list[FileDiff]:
    """The files of a `-U0` diff in order; lines starting `+++`/`---` inside a hunk are text."""
    diffs: list[FileDiff] = []
    current: FileDiff | None = None
    hunk: Hunk | None = None
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            current = FileDiff(line.split(" b/", 1)[-1])
            diffs.append(current)
            hunk = None
        elif current is None:
            continue
        elif line.startswith("@@"):
            found = _HEADER.match(line)
            old, new = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
            hunk = Hunk(old, new)
            current.hunks.append(hunk)
        elif hunk is not None and line.startswith("+"):
            hunk.added.append(line[1:])
        elif hunk is not None and line.startswith("-"):
            hunk.removed.append(line[1:])
        elif hunk is None and line.startswith("new file mode"):
            current.status = "added"
        elif hunk is None and line.startswith("deleted file mode"):
            current.status = "deleted"
    return diffs


def frontmatter_lines(lines: list[str]) -> int:
    """How many of `lines` (a file from its first line) are its frontmatter block."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return index + 1
    return 0
