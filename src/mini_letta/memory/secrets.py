"""The secret scanner: credentials must never reach memory, which git keeps forever.

`find_secret` is the write gate and `redact_secrets` cleans text that is shown or sent
elsewhere; both run one scan over the table in `secret_patterns`. The scan is linear in its
input, whatever the text: a pattern's literal anchors are found with `str.find`, its shape runs
only at an anchor and inside a window of at most `WINDOW` characters, and a block's closing
line (a private key's END) is searched for by one cursor that never moves back. Where two
matches overlap, the earlier table entry wins.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import TypeVar

from mini_letta.errors import SecretDetectedError
from mini_letta.memory.secret_patterns import PATTERNS, WINDOW, SecretPattern
from mini_letta.structs import Struct

Observer = Callable[[int, int], None]  # (start, end) of each window a shape is matched in
_Text = TypeVar("_Text", str, bytes)
_TOKEN_TAIL = re.compile(r"[^\s\"'`,;]*+")


class SecretMatch(Struct, frozen=True):
    kind: str
    start: int
    end: int


def scan_secrets(text: str, observe: Observer | None = None) -> list[SecretMatch]:
    """Every credential in `text`, in order; `observe` sees each window the scan examines."""
    taken = _Taken()
    ascii_text = text.encode("ascii", "replace")  # one byte per character: positions carry over
    folded = ascii_text.lower()
    for pattern in PATTERNS:
        positions = _anchor_positions(text, ascii_text, folded, pattern)
        closer = _Closer(text, *pattern.closing, observe) if pattern.closing else None
        covered = 0  # this pattern's last match ends here; anchors inside it are skipped
        for position in positions:
            if position < covered:
                continue
            found = _match_at(text, pattern, position, observe)
            if found is None:
                continue
            start, end = found
            if closer is not None:
                end = closer.after(end) or end
            covered = end
            taken.add(pattern.kind, start, end)
    return taken.matches()


def _anchor_positions(
    text: str, ascii_text: bytes, folded: bytes, pattern: SecretPattern
) -> list[int]:
    """Where the pattern's anchors occur, ascending; bytes search is the fastest `find`."""
    found: list[int] = []
    for anchor in pattern.anchors:
        if anchor.isascii():
            found += _find_all(folded if pattern.fold else ascii_text, anchor.encode("ascii"))
        else:
            found += _find_all(text, anchor)
    return sorted(set(found)) if len(pattern.anchors) > 1 else found


def _find_all(haystack: _Text, needle: _Text) -> list[int]:
    found: list[int] = []
    index = haystack.find(needle)
    while index != -1:
        found.append(index)
        index = haystack.find(needle, index + 1)
    return found


def _match_at(
    text: str, pattern: SecretPattern, position: int, observe: Observer | None
) -> tuple[int, int] | None:
    end = min(len(text), position + WINDOW)
    if observe is not None:
        observe(position, end)
    match = pattern.shape.match(text, position, end)
    if match is None:
        return None
    value = match.group(pattern.group)
    if pattern.check is not None and not pattern.check(value):
        return None
    start, stop = match.span(pattern.group)
    if stop == end < len(text):  # a credential longer than the window: redact all of it
        stop = _TOKEN_TAIL.match(text, stop).end()  # type: ignore[union-attr]
    return start, stop


class _Closer:
    """The first closing line at or after a position, for positions that only grow.

    Remembers how far it has searched, so all the headers of one scan cost one pass.
    """

    def __init__(
        self, text: str, anchor: str, shape: re.Pattern[str], observe: Observer | None
    ) -> None:
        self.text = text
        self.anchor = anchor
        self.shape = shape
        self.observe = observe
        self.searched = 0
        self.last: tuple[int, int] | None = None  # (start, end) of the last closing found

    def after(self, position: int) -> int | None:
        if self.last is not None and self.last[0] >= position:
            return self.last[1]
        index = self.text.find(self.anchor, max(position, self.searched))
        while index != -1:
            self.searched = index + 1
            end = min(len(self.text), index + WINDOW)
            if self.observe is not None:
                self.observe(index, end)
            match = self.shape.match(self.text, index, end)
            if match is not None:
                self.last = match.span()
                return self.last[1]
            index = self.text.find(self.anchor, index + 1)
        self.searched = len(self.text)
        return None


class _Taken:
    """Disjoint matches kept sorted by start; an overlapping later one is dropped."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.kinds: list[str] = []

    def add(self, kind: str, start: int, end: int) -> None:
        index = bisect.bisect_left(self.starts, end)
        if index > 0 and self.ends[index - 1] > start:
            return
        self.starts.insert(index, start)
        self.ends.insert(index, end)
        self.kinds.insert(index, kind)

    def matches(self) -> list[SecretMatch]:
        return [
            SecretMatch(*fields) for fields in zip(self.kinds, self.starts, self.ends, strict=True)
        ]


def iter_secrets(text: str) -> Iterator[SecretMatch]:
    """Every credential in `text`, in order, overlaps resolved in favour of the table order."""
    yield from scan_secrets(text)


def find_secret(text: str) -> str | None:
    """The kind of the first credential in `text` (e.g. "OpenAI API key"), or None."""
    for found in scan_secrets(text):
        return found.kind
    return None


def refuse_secret(text: str, where: str) -> None:
    """The one gate for text that memory stores or commits: SecretDetectedError names the kind
    (never the value) of the first credential in `text`; `where` says which text it was."""
    kind = find_secret(text)
    if kind is not None:
        raise SecretDetectedError(kind, where)


def secret_values(text: str) -> set[str]:
    """The matched credential strings themselves (to compare before/after an edit)."""
    return {text[found.start : found.end] for found in scan_secrets(text)}


def kind_slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")


def redact_secrets(text: str) -> str:
    """`text` with each credential replaced by `<redacted:KIND-SLUG>`."""
    parts: list[str] = []
    position = 0
    for found in scan_secrets(text):
        parts.append(text[position : found.start])
        parts.append(f"<redacted:{kind_slug(found.kind)}>")
        position = found.end
    parts.append(text[position:])
    return "".join(parts)
