"""The secret scanner: credentials must never reach memory, which git keeps forever.

`find_secret` is the write gate and `redact_secrets` cleans text that is shown or sent
elsewhere; both run one scan over the table in `secret_patterns`. The scan is linear in its
input, whatever the text: a pattern's literal anchors are found with `str.find`, its shape runs
only at an anchor and inside a window of at most `WINDOW` characters after it and `LOOKBACK`
before it, and a match that fills its window (a long key block) is continued once, so one
pattern's matches never cover a character twice. Where two matches overlap, the earlier table
entry wins.

The same text is often judged several times (a run's messages are redacted for its transcript
and for its payload, the environment at each tool call, a memory file before and after an
edit): `_Verdicts` remembers recent scans by content, within a bound on the characters kept.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections.abc import Callable, Iterator

from mini_letta.errors import SecretDetectedError
from mini_letta.memory.secret_patterns import LOOKBACK, PATTERNS, WINDOW, SecretPattern, compiled
from mini_letta.structs import Struct

Observer = Callable[[int, int], None]  # (start, end) of each window a shape is matched in
Shaped = Callable[[int, int, int], None]  # (pattern index, start, end) of each shape match
_TOKEN_TAIL = re.compile(r"[^\s\"'`,;]*+")


class SecretMatch(Struct, frozen=True):
    kind: str
    start: int
    end: int


def scan_secrets(
    text: str, observe: Observer | None = None, shaped: Shaped | None = None
) -> list[SecretMatch]:
    """Every credential in `text`, in order. `observe` sees each window the scan examines and
    `shaped` each span a shape matched, before its value is judged (how linear it is)."""
    if not text:
        return []
    if observe is not None or shaped is not None:
        return _scan(text, observe, shaped)
    found = _VERDICTS.get(text)
    if found is None:
        found = tuple(_scan(text, None, None))
        _VERDICTS.put(text, found)
    return list(found)


class _Verdicts:
    """Recent scans by text, oldest forgotten first once they hold more than `budget`
    characters; a text longer than `budget // 8` is not kept (it would push out the rest)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.found: dict[str, tuple[SecretMatch, ...]] = {}
        self.size = 0
        self.lock = threading.Lock()

    def get(self, text: str) -> tuple[SecretMatch, ...] | None:
        return self.found.get(text)

    def put(self, text: str, found: tuple[SecretMatch, ...]) -> None:
        if len(text) > self.budget // 8:
            return
        with self.lock:
            if text in self.found:
                return
            self.found[text] = found
            self.size += len(text)
            while self.size > self.budget:
                oldest = next(iter(self.found))
                del self.found[oldest]
                self.size -= len(oldest)


_VERDICTS = _Verdicts(1 << 21)  # 2M characters: a large memory's files several times over


def _scan(text: str, observe: Observer | None, shaped: Shaped | None) -> list[SecretMatch]:
    taken = _Taken()
    ascii_text = text.encode("ascii", "replace")  # one byte per character: positions carry over
    haystacks = (text, ascii_text, ascii_text.lower())
    for index, (pattern, needles) in enumerate(zip(PATTERNS, _NEEDLES, strict=True)):
        positions = _anchor_positions(haystacks, needles)
        if not positions:
            continue
        report = None if shaped is None else functools.partial(shaped, index)
        covered = 0  # this pattern's last match ends here; anchors inside it are skipped
        for position in positions:
            if position < covered:
                continue
            found = _match_at(text, pattern, position, observe, report)
            if found is None:
                continue
            start, end = found
            covered = end
            taken.add(pattern.kind, start, end)
    return taken.matches()


def _needles(pattern: SecretPattern) -> tuple[tuple[int, str | bytes], ...]:
    """Each anchor as it is searched for: (which haystack, needle). An ASCII anchor is found
    in the text's bytes (folded when the pattern is), the fastest `find`; others in the text."""
    return tuple(
        (2 if pattern.fold else 1, anchor.encode("ascii")) if anchor.isascii() else (0, anchor)
        for anchor in pattern.anchors
    )


_NEEDLES = tuple(_needles(pattern) for pattern in PATTERNS)  # encoded once, not every scan


def _anchor_positions(
    haystacks: tuple[str, bytes, bytes], needles: tuple[tuple[int, str | bytes], ...]
) -> list[int]:
    """Where the pattern's anchors occur, ascending."""
    found: list[int] = []
    for which, needle in needles:
        haystack = haystacks[which]
        index = haystack.find(needle)  # type: ignore[arg-type]
        while index != -1:
            found.append(index)
            index = haystack.find(needle, index + 1)  # type: ignore[arg-type]
    return sorted(set(found)) if len(needles) > 1 else found


def _match_at(
    text: str,
    pattern: SecretPattern,
    position: int,
    observe: Observer | None,
    shaped: Observer | None = None,
) -> tuple[int, int] | None:
    end = min(len(text), position + WINDOW)
    if observe is not None:
        observe(max(0, position - LOOKBACK), end)
    if pattern.locate is not None:
        return pattern.locate(text, position, end)
    match = compiled(pattern.shape).match(text, position, end)
    if match is None:
        return None
    start = _lead_start(text, position, pattern) if pattern.lead else position
    if start is None:  # the shape first: it fails fastest where the anchor is common
        return None
    if shaped is not None:
        shaped(start, match.end())
    if pattern.check is not None and not pattern.check(match):
        return None
    if pattern.group:
        start, stop = match.span(pattern.group)
    else:
        stop = match.end()
    if stop == end < len(text):  # a credential longer than the window: redact all of it
        tail = compiled(pattern.tail) if pattern.tail else _TOKEN_TAIL
        stop = tail.match(text, stop).end()  # type: ignore[union-attr]
    return start, stop


def _lead_start(text: str, position: int, pattern: SecretPattern) -> int | None:
    """Where a match that begins `lead_count` lead characters before its anchor starts, or
    None when the run of lead characters there is shorter or longer."""
    least, most = pattern.lead_count
    start = position
    floor = max(0, position - most - 1)
    while start > floor and text[start - 1] in pattern.lead:
        start -= 1
    return start if least <= position - start <= most else None


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
