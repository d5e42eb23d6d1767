"""Grounding: whether a memory line says only what its evidence says.

A line is checked against an `EvidencePool` (the user's own words of the messages it cites,
plus memory's own earlier text when a run rewrites or consolidates it). The facts that carry
meaning must all be found: numbers and amounts (`$5,000` = `5k` = 5000, `3万` = 30000),
dates (ISO, `May 3`, `5月3日`; the message's own day and its neighbours stand for "today" and
"yesterday"), names and literal tokens (capitalised words, versions, paths, URLs, `code`),
qualifiers (severe/mild, 严重/轻微, always/never, no longer/不再, weekdays) and a negation.
The rest must be mostly there: English words by a five-letter stem, Chinese by character pairs.
`unsupported` names the first thing not found, for the gate's reason. Linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, timedelta

from mini_letta.memory.words import ASCII_WORD as _ASCII_WORD
from mini_letta.memory.words import CJK as _CJK
from mini_letta.memory.words import STOP as _STOP
from mini_letta.memory.words import pairs as _pairs
from mini_letta.memory.words import plain_units
from mini_letta.memory.words import stem as _stem

COVERAGE = 0.5  # the share of a line's plain words its evidence must hold
_I = re.IGNORECASE
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#{1,6})?\s*(?:\[[ xX]\]\s*)?")
_LABEL = re.compile(r"^(?:\*\*)?([^:：\n]{1,40}?)(?:\*\*)?\s*(?::\s+|：\s*)")
_TOKEN = re.compile(r"[A-Za-z0-9_][\w+#./@:~-]*[\w+#/]|[A-Za-z0-9]", re.ASCII)
_CODE = re.compile(r"`([^`\n]{1,200})`")
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])[$€£¥]?(\d[\d,]*(?:\.\d+)?)\s*(k|K|m|M|w|万|千|百|亿)?(?![A-Za-z0-9_])"
)
_AMOUNT = re.compile(r"\d+(?:\.\d+)?[kKmMwW]")
_CN_NUMBER = re.compile(
    r"([零一二两三四五六七八九十百千万]{1,8})(?=[元块个天年月日号次岁人小周万千百%公斤米])"
)
_CN_DIGITS = {c: n for n, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
_SUFFIX = {"k": 1000, "m": 1_000_000, "w": 10_000, "万": 10_000, "千": 1000, "百": 100}
_SUFFIX |= {"亿": 100_000_000}
_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATES = re.compile(
    r"(?P<iso>(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2}))"
    rf"|(?P<md>\b(?P<mn>{_MONTH})\.?\s+(?P<md_d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<md_y>\d{{4}}))?)"
    rf"|(?P<dm>\b(?P<dm_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmn>{_MONTH})\b\.?(?:,?\s*(?P<dm_y>\d{{4}}))?)"
    r"|(?P<cn>(?:(?P<cn_y>\d{4})年)?(?P<cn_m>\d{1,2})月(?P<cn_d>\d{1,2})[日号])",
    _I,
)
_QUALIFIERS: tuple[tuple[str, str], ...] = (
    ("severe", r"\bsevere(?:ly)?\b|\bserious(?:ly)?\b|\bbad(?:ly)?\b|严重|重度|很重"),
    ("mild", r"\bmild(?:ly)?\b|\bslight(?:ly)?\b|\bminor\b|轻微|轻度|有点"),
    ("moderate", r"\bmoderate(?:ly)?\b|中度"),
    ("always", r"\balways\b|\bevery time\b|总是|每次|一律|永远|始终|一直"),
    ("never", r"\bnever\b|从不|从来不|永不|绝不|绝对不"),
    ("sometimes", r"\bsometimes\b|\boccasionally\b|有时|偶尔"),
    ("usually", r"\busually\b|\boften\b|\bmostly\b|通常|经常|一般"),
    ("rarely", r"\brarely\b|\bseldom\b|很少"),
    ("no_longer", r"\bno longer\b|\banymore\b|\bany more\b|不再|再也不|已经不|不\w{1,4}了"),
    ("maybe", r"\bmaybe\b|\bprobably\b|\bmight\b|\bperhaps\b|可能|也许|大概"),
    ("must", r"\bmust\b|\brequired?\b|必须|务必"),
    ("monday", r"\bmondays?\b|周一|星期一|礼拜一"),
    ("tuesday", r"\btuesdays?\b|周二|星期二|礼拜二"),
    ("wednesday", r"\bwednesdays?\b|周三|星期三|礼拜三"),
    ("thursday", r"\bthursdays?\b|周四|星期四|礼拜四"),
    ("friday", r"\bfridays?\b|周五|星期五|礼拜五"),
    ("saturday", r"\bsaturdays?\b|周六|星期六|礼拜六"),
    ("sunday", r"\bsundays?\b|周日|周天|星期日|星期天|礼拜天"),
)
_QUALIFIER = re.compile("|".join(f"(?P<{name}>{rx})" for name, rx in _QUALIFIERS), _I)
_QUALIFIER_BY_NAME = {name: re.compile(rx, _I) for name, rx in _QUALIFIERS}
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|without|cannot|instead|rather|over|misdiagnos\w*"
    r"|wrong|false|stop|stopped|quit|avoid)\b|n['’]t\b|不|没|无|别|非|未|而不是|停止",
    _I,
)
_CLAUSE_END = re.compile(r"[,.;:!?\n，。；：！？、]|\bbut\b|\band\b|但是|不过|而是|改用|换成")
_COMMON_CAPS = frozenset({"i", "the", "a", "an", "it", "we", "my", "our", "you", "they", "he"})


class EvidencePool:
    """What a set of evidence texts holds, in the forms lines are compared by. The words are
    indexed at once; numbers, dates and qualifiers only when a line asks for them (most lines
    carry none, and a whole transcript's pool is large)."""

    def __init__(self, texts: Iterable[str], days: Iterable[str | None] = ()) -> None:
        self.raw = "\n".join(texts)
        self.text = self.raw.lower()
        words = {w.lower() for w in _ASCII_WORD.findall(self.raw)}
        words |= {t.lower().rstrip(".:") for t in _TOKEN.findall(self.raw)}
        self.words = frozenset(words)
        self.stems = frozenset(_stem(w) for w in words)
        self.pairs = frozenset(_pairs(self.raw))
        self.days = tuple(days)
        self._dates: tuple[frozenset[tuple[int, int]], frozenset[str]] | None = None
        self._qualifiers: dict[str, bool] = {}
        self._negated: bool | None = None

    @property
    def empty(self) -> bool:
        return not self.text.strip()

    @property
    def dates(self) -> frozenset[tuple[int, int]]:
        return self._dated()[0]

    @property
    def numbers(self) -> frozenset[str]:
        return self._dated()[1]

    @property
    def negated(self) -> bool:
        if self._negated is None:
            self._negated = _NEGATION.search(self.raw) is not None
        return self._negated

    def has_qualifier(self, name: str) -> bool:
        if name not in self._qualifiers:
            self._qualifiers[name] = _QUALIFIER_BY_NAME[name].search(self.raw) is not None
        return self._qualifiers[name]

    def _dated(self) -> tuple[frozenset[tuple[int, int]], frozenset[str]]:
        if self._dates is None:
            found, undated = _find_dates(self.raw)
            dates = {(m, d) for _, m, d in found}
            for stamp in self.days:
                dates |= _around(stamp)
            self._dates = (frozenset(dates), frozenset(_numbers(undated)))
        return self._dates


def build_pool(texts: Iterable[str], days: Iterable[str | None] = ()) -> EvidencePool:
    """The pool of `texts`; `days` are their messages' timestamps (their day, the day before
    and after count as mentioned: "today", "yesterday", "tomorrow")."""
    return EvidencePool(texts, days)


def unsupported(line: str, pool: EvidencePool, before: str | None = None) -> str | None:
    """The first fact of `line` its evidence does not hold (a short phrase), or None.

    `before` is the line it replaces: then the words the change brings are held to the
    stricter standard of facts (a changed value must be found), the rest to coverage.
    """
    content, label = split_label(line)
    found_dates, rest = _find_dates(content + " " + label)
    for _, month, day in found_dates:
        if (month, day) not in pool.dates:
            return f"the date {month:02d}-{day:02d}"
    for number in _numbers(rest):
        if number not in pool.numbers:
            return f"the number {number}"
    for qualifier in _qualifiers(content):
        if not pool.has_qualifier(qualifier):
            return f"{qualifier.replace('_', ' ')!r}"
    if _NEGATION.search(content):
        if not pool.negated:
            return "the negation"
    else:
        flipped = _negated_in_pool(content, pool)
        if flipped is not None:
            return f"{flipped!r} without the user's negation"
    for token in _literal_tokens(content, valued=bool(label)):
        if not _has_literal(pool, token):
            return repr(token)
    plain = _CN_NUMBER.sub(" ", _NUMBER.sub(" ", _find_dates(content)[1]))
    return _coverage_gap(plain, pool, before)


def split_label(line: str) -> tuple[str, str]:
    """(content, label) of a memory line: `- Preference (2026-05-01): tabs` gives
    ("tabs", "Preference (2026-05-01)"); a line without a short label has label ""."""
    text = _MARKER.sub("", line, count=1).strip()
    found = _LABEL.match(text)
    if found and len(found.group(1).split()) <= 4:
        return text[found.end() :].strip(), found.group(1)
    return text, ""


def is_fact_line(line: str) -> bool:
    """Lines that state something: not blank, not a heading or a rule of punctuation."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or stripped in ("---", "```", "~~~"):
        return False
    return _ASCII_WORD.search(stripped) is not None or _CJK.search(stripped) is not None


def has_unit(pool: EvidencePool, unit: str) -> bool:
    if _CJK.fullmatch(unit):
        return unit in pool.pairs
    return unit in pool.words or _stem(unit) in pool.stems


def _coverage_gap(content: str, pool: EvidencePool, before: str | None) -> str | None:
    """Qualifiers and negations were checked as facts; the other words are held to COVERAGE
    (for a rewrite: the words the change brings)."""
    units = plain_units(_QUALIFIER.sub(" ", content))
    if before is not None:
        old = set(plain_units(_QUALIFIER.sub(" ", split_label(before)[0])))
        changed = [u for u in units if u not in old]
        missing = [u for u in changed if not has_unit(pool, u)]
        if changed and len(missing) > len(changed) * (1 - COVERAGE):
            return repr(missing[0])
        return None
    if not units:
        return None
    missing = [u for u in units if not has_unit(pool, u)]
    if len(missing) > len(units) * (1 - COVERAGE):
        shown = ", ".join(repr(u) for u in missing[:3])
        return f"{len(missing)} of its {len(units)} words ({shown})"
    return None


def _negated_in_pool(content: str, pool: EvidencePool) -> str | None:
    """A word of `content` that the evidence only ever says with a negation before it
    (in its clause): "I don't eat pork" does not support "eats pork"."""
    for unit in dict.fromkeys(plain_units(content)):
        needle = unit if _CJK.fullmatch(unit) else _stem(unit)
        starts = _occurrences(pool.text, needle, ascii_word=not _CJK.fullmatch(unit))
        if starts and all(_clause_negated(pool.text, start) for start in starts):
            return unit
    return None


def _occurrences(text: str, needle: str, *, ascii_word: bool, limit: int = 20) -> list[int]:
    found: list[int] = []
    start = text.find(needle)
    while start != -1 and len(found) < limit:
        before = text[start - 1] if start else " "
        if not ascii_word or not (before.isascii() and before.isalnum()):
            found.append(start)
        start = text.find(needle, start + 1)
    return found


def _clause_negated(text: str, start: int) -> bool:
    window = text[max(0, start - 40) : start]
    clause = _CLAUSE_END.split(window)[-1]
    return _NEGATION.search(clause) is not None


def _literal_tokens(content: str, valued: bool = False) -> list[str]:
    """Names, versions, paths, URLs and `code`: found as written or not at all. A capitalised
    first word counts as a name only after a label (`Name: Bob`), not at a sentence start."""
    tokens = [span.strip() for span in _CODE.findall(content) if span.strip()]
    for index, sentence in enumerate(re.split(r"(?<=[.!?;])\s+|[(),]", _CODE.sub(" ", content))):
        first = not (valued and index == 0)
        for token in _TOKEN.findall(sentence):
            bare = token.rstrip(".:")
            if _is_literal(bare, first):
                tokens.append(bare)
            first = False
    return tokens


def _has_literal(pool: EvidencePool, token: str) -> bool:
    lower = token.lower()
    if lower in pool.words or lower in pool.text:
        return True
    return token.isalpha() and _stem(lower) in pool.stems


def _is_literal(token: str, first: bool) -> bool:
    if token.lower() in _COMMON_CAPS or token.isdigit() or token.lower() in _STOP:
        return False
    if _AMOUNT.fullmatch(token):
        return False  # 5k, 1.5m: an amount, checked as a number
    if any(c in token for c in "/@~") or re.search(r"\w\.\w", token):
        return True  # a path, address, domain or dotted name
    if re.search(r"\d", token) and re.search(r"[A-Za-z]", token):
        return True  # python3, gpt-4o, v2
    if token[:1].isupper() and not first:
        return True  # a name
    return token[1:] != token[1:].lower() and token[:1].islower()  # camelCase, iPhone


def _find_dates(text: str) -> tuple[list[tuple[int | None, int, int]], str]:
    """The dates in `text` as (year, month, day), and the text with them blanked out."""
    found: list[tuple[int | None, int, int]] = []
    for match in _DATES.finditer(text):
        g = match.groupdict()
        year: int | None
        if g["iso"]:
            year, month, day = int(g["y"]), int(g["m"]), int(g["d"])
        elif g["md"]:
            year = int(g["md_y"]) if g["md_y"] else None
            month, day = _MONTHS[g["mn"].lower()], int(g["md_d"])
        elif g["dm"]:
            year = int(g["dm_y"]) if g["dm_y"] else None
            month, day = _MONTHS[g["dmn"].lower()], int(g["dm_d"])
        else:
            year = int(g["cn_y"]) if g["cn_y"] else None
            month, day = int(g["cn_m"]), int(g["cn_d"])
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.append((year, month, day))
    return found, _DATES.sub(" ", text)


def _around(stamp: str | None) -> set[tuple[int, int]]:
    try:
        day = date.fromisoformat((stamp or "")[:10])
    except ValueError:
        return set()
    return {((day + timedelta(days=n)).month, (day + timedelta(days=n)).day) for n in (-1, 0, 1)}


def _numbers(text: str) -> list[str]:
    found: list[str] = []
    for match in _NUMBER.finditer(text):
        digits = match.group(1).replace(",", "")
        try:
            value = float(digits)
        except ValueError:
            continue
        suffix = (match.group(2) or "").lower()
        found.append(_number_key(value * _SUFFIX.get(suffix, 1)))
    for match in _CN_NUMBER.finditer(text):
        value_cn = _chinese_number(match.group(1))
        if value_cn is not None:
            found.append(_number_key(value_cn))
    return found


def _number_key(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _chinese_number(text: str) -> int | None:
    if len(text) == 1 and text in _CN_UNITS and text != "十":
        return None  # 万, 千 or 百 alone is a unit word, not a count
    total, section, digit = 0, 0, 0
    for char in text:
        if char in _CN_DIGITS:
            digit = _CN_DIGITS[char]
        elif char == "万":
            total += (section + digit) * 10_000
            section, digit = 0, 0
        elif char in _CN_UNITS:
            section += (digit or 1) * _CN_UNITS[char]
            digit = 0
    value = total + section + digit
    return value or None


def _qualifiers(text: str) -> set[str]:
    return {m.lastgroup for m in _QUALIFIER.finditer(text) if m.lastgroup}
