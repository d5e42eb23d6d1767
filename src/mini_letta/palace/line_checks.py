"""The doctor's checks across memory lines: duplicates, near-duplicates, contradictions and
placeholders.

Every check is linear or close to it: exact duplicates by a hash of the normalised line (the
memory gate's `normalise_line`); near-duplicates by a similarity join with prefix filtering
(a pair with Jaccard similarity >= NEAR never fails to share a word among the rarest few of
each line, so only those buckets are compared, each bucket at most BUCKET_CAP wide);
contradictions by the subject of `subject: value` lines, qualified by their heading. A finding
is reported on the later line and names the earlier one, so a planted pair is one finding.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import NamedTuple

from mini_letta.memory.layout import DEFAULT_HUMAN, DEFAULT_PERSONA
from mini_letta.reflection.gate.check import normalise_line
from mini_letta.structs import Struct

NEAR = 0.7  # Jaccard similarity of two lines' words at which they say the same thing
MIN_WORDS = 4  # shorter lines share too much by chance
MIN_NORMAL = 6  # exact duplicates shorter than this ("- yes") are common and harmless
MAX_CANDIDATES = 16  # lines compared with each line, at most
BUCKET_CAP = 12  # a word in more earlier lines than this is too common to find pairs by
STARTER = frozenset(line.strip() for text in (DEFAULT_HUMAN, DEFAULT_PERSONA) for line in
                    text.splitlines() if line.strip())  # fmt: skip
_GENERIC_PLACEHOLDER = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\[\s*\]\s*)?(?:todo|tbd|fixme|xxx|placeholder|lorem ipsum\b.*|"
    r"\.\.\.|…|<[^<>]{0,40}>|\[(?:placeholder|todo|tbd|fill[^\]]{0,30})\]|"
    r"\((?:empty|none yet|to be filled|tbd)\)|待补充|待定|暂无)\s*[.:：。]?\s*$",
    re.IGNORECASE,
)
_SUBJECT = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>[^:：=*_`\[\]()<>]{1,40}?)(?:\*\*|__)?\s*"
    r"(?:[:：](?!//)|(?<=\s)=)\s*(?P<value>\S.*)$"
)
_NOT_SUBJECTS = frozenset(
    {"note", "notes", "example", "examples", "eg", "ie", "see", "tip", "warning", "todo",
     "why", "how", "because", "also", "update", "http", "https", "file", "源", "注", "例如"}
)  # fmt: skip
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


class Line(NamedTuple):
    """One line of a file (a tuple: a memory has thousands, built on every audit)."""

    path: str
    number: int  # 1-based, in the file
    text: str
    heading: str  # the nearest heading above it, normalised ("" at the top)


class LineFinding(Struct, frozen=True):
    kind: str
    path: str
    line: int
    message: str
    related: str | None = None  # "path:line" of the other line


def content_lines(path: str, body: str, first_line: int) -> list[Line]:
    """The body's lines that state something: not blank, not a fence or what it encloses, not a
    rule or a table border. Headings are kept out too, but qualify the lines below them."""
    found: list[Line] = []
    heading = ""
    fenced = False
    for offset, text in enumerate(body.split("\n")):
        stripped = text.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not stripped or set(stripped) <= set("-*_=|: "):
            continue
        if stripped.startswith("#"):
            heading = normalise_line(stripped.lstrip("#"))
            continue
        found.append(Line(path, first_line + offset, text, heading))
    return found


def check_lines(lines: list[Line]) -> list[LineFinding]:
    findings = _placeholders(lines)
    exact = _duplicates(lines)
    findings += exact
    already = {(f.path, f.line) for f in exact}
    findings += _near_duplicates(
        [line for line in lines if (line.path, line.number) not in already]
    )
    findings += _contradictions(lines)
    return findings


def _where(line: Line) -> str:
    return f"{line.path}:{line.number}"


def _placeholders(lines: list[Line]) -> list[LineFinding]:
    per_file = Counter(line.path for line in lines)
    findings = []
    for line in lines:
        stripped = line.text.strip()
        if stripped in STARTER:
            if per_file[line.path] > 1:  # alone, it is a new agent's honest starting point
                findings.append(
                    LineFinding(
                        "placeholder",
                        line.path,
                        line.number,
                        f"the starter line {stripped!r} is still here beside what "
                        "was learned since",
                    )  # fmt: skip
                )
        elif _GENERIC_PLACEHOLDER.match(stripped):
            findings.append(
                LineFinding(
                    "placeholder",
                    line.path,
                    line.number,
                    f"{stripped!r} is a placeholder, not something known",
                )  # fmt: skip
            )
    return findings


def _duplicates(lines: list[Line]) -> list[LineFinding]:
    first: dict[str, Line] = {}
    findings = []
    for line in lines:
        norm = normalise_line(line.text)
        if len(norm) < MIN_NORMAL:
            continue
        earlier = first.setdefault(norm, line)
        if earlier is not line:
            findings.append(
                LineFinding(
                    "duplicate",
                    line.path,
                    line.number,
                    f"says again what {_where(earlier)} says",
                    _where(earlier),
                )  # fmt: skip
            )
    return findings


def line_words(text: str) -> frozenset[str]:
    """A line's words for similarity: words folded, and CJK runs as character bigrams."""
    found = [_singular(word) for word in _WORDS.findall(text.casefold())]
    if not _CJK.search(text):
        return frozenset(found)
    words: set[str] = set()
    for word in found:
        if _CJK.search(word):
            chars = [c for c in word]
            words.update(a + b for a, b in zip(chars, chars[1:], strict=False))
            if len(chars) == 1:
                words.add(word)
        else:
            words.add(word)
    return frozenset(words)


def _singular(word: str) -> str:
    """A plural folded to its singular, roughly (`fridays`, `tests`), so number alone does not
    make two lines differ."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _near_duplicates(lines: list[Line]) -> list[LineFinding]:
    sets = [line_words(line.text) for line in lines]
    frequency: Counter[str] = Counter(word for words in sets for word in words)
    buckets: dict[str, list[int]] = {}
    findings = []
    for index, words in enumerate(sets):
        if len(words) < MIN_WORDS:
            continue
        ordered = sorted(words, key=lambda w: (frequency[w], w))
        prefix = ordered[: len(words) - math.ceil(NEAR * len(words)) + 1]
        candidates: set[int] = set()
        for word in prefix:
            bucket = buckets.setdefault(word, [])
            candidates.update(bucket)
            if len(bucket) < BUCKET_CAP:
                bucket.append(index)
        if len(candidates) > MAX_CANDIDATES:  # keep the nearest earlier lines: a bound per line
            candidates = set(sorted(candidates)[-MAX_CANDIDATES:])
        match = _closest(index, sets, candidates)
        if match is not None:
            earlier, line = lines[match], lines[index]
            findings.append(
                LineFinding(
                    "near_duplicate",
                    line.path,
                    line.number,
                    f"says nearly what {_where(earlier)} says: {earlier.text.strip()!r}",
                    _where(earlier),
                )
            )
    return findings


def _closest(index: int, sets: list[frozenset[str]], candidates: set[int]) -> int | None:
    """The earliest candidate at least NEAR similar. Sizes filter first: a Jaccard similarity
    of NEAR needs the smaller set to hold at least NEAR of the larger one."""
    words = sets[index]
    size = len(words)
    low, high = NEAR * size, size / NEAR
    best: int | None = None
    for other in candidates:
        theirs = sets[other]
        count = len(theirs)
        if (best is not None and other > best) or not low <= count <= high:
            continue
        shared = len(words & theirs)
        if shared >= NEAR * (size + count - shared):
            best = other
    return best


def _contradictions(lines: list[Line]) -> list[LineFinding]:
    """`key: value` lines with one key and two values. Lines under two different headings
    (`## Alpha` / `## Beta`) are about different things; a line under no heading is about the
    same thing as any line with its key."""
    seen: dict[str, list[tuple[str, frozenset[str], Line]]] = {}  # key -> (heading, words, line)
    findings = []
    for line in lines:
        match = _SUBJECT.match(line.text)
        if match is None:
            continue
        key = normalise_line(match["key"])
        if not key or key in _NOT_SUBJECTS or len(match["key"].split()) > 4:
            continue
        value = frozenset(_WORDS.findall(match["value"].casefold()))
        if not value:
            continue
        same = [
            (v, old)
            for heading, v, old in seen.setdefault(key, [])
            if not heading or not line.heading or heading == line.heading
        ]
        clash = next((old for v, old in same if not (v <= value or value <= v)), None)
        if clash is not None and all(v != value for v, _ in same):
            findings.append(
                LineFinding(
                    "contradiction",
                    line.path,
                    line.number,
                    f"{match['key'].strip()!r} is {match['value'].strip()!r} here but "
                    f"{clash.text.strip()!r} at {_where(clash)}",
                    _where(clash),
                )
            )
        seen[key].append((line.heading, value, line))
    return findings
