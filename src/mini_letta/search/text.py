"""How text becomes FTS5 tokens, identically for what is indexed and what is asked.

FTS5's `unicode61` tokenizer splits on spaces and punctuation, which leaves a run of Chinese
characters as one long token ("我更喜欢用tabs缩进" never matches "缩进"), and the `trigram`
tokenizer cannot match a two-character word at all. So before FTS5 sees any text, each run of
CJK characters is rewritten as its overlapping bigrams plus its last character alone
("喜欢用" -> "喜欢 欢用 用"): every two-character word is then one token, a longer word is a
phrase of bigrams, and a single character is a prefix of some token. NFKC folds full-width
letters, digits and punctuation first ("ｐｎｐｍ，" -> "pnpm,"), so they behave like ASCII.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from mini_letta.structs import Struct

# Han (with extensions and compatibility ideographs), kana and Hangul: scripts written without
# spaces between words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _bigrams(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)]


def build_index_text(text: str) -> str:
    """The text FTS5 indexes: normalised, CJK runs as bigrams plus their last character."""
    if text.isascii():  # the common case, and NFKC leaves ASCII alone
        return text.casefold()

    def expand(match: re.Match[str]) -> str:
        run = match.group(0)
        return " " + " ".join([*_bigrams(run), run[-1]]) + " "

    return _CJK_RUN.sub(expand, normalise(text))


class ParsedQuery(Struct, frozen=True):
    """A query as FTS5 expressions: `all_terms` needs every word (a CJK run as a phrase);
    `loose` lists (token, FTS5 unit) for any word or, for a CJK run longer than a word, any of
    its bigrams, and `any_term` joins them with OR."""

    words: tuple[str, ...]
    all_terms: str
    loose: tuple[tuple[str, str], ...]

    @property
    def any_term(self) -> str:
        return join_any(unit for _, unit in self.loose)


def join_any(units: Iterable[str]) -> str:
    return " OR ".join(units)


def _fts_unit(word: str) -> str:
    """One query word as an FTS5 phrase (a CJK word: its bigrams in a row; one character: a
    prefix, since it is indexed only inside bigrams)."""
    if _CJK_RUN.fullmatch(word):
        if len(word) == 1:
            return f'"{word}"*'
        return '"' + " ".join(_bigrams(word)) + '"'
    return '"' + word.replace('"', '""') + '"'


def parse_query(query: str) -> ParsedQuery | None:
    """None when the query has nothing searchable (only punctuation or spaces).

    A lone CJK character beside other words is almost always a particle (的, 了, 吗) and, as
    a prefix over every bigram it starts, the costliest term there is: it is left out then."""
    words = tuple(dict.fromkeys(_WORD.findall(normalise(query))))
    if not words:
        return None
    terms = [w for w in words if not (len(w) == 1 and _CJK_RUN.fullmatch(w))] or list(words)
    loose: dict[str, str] = {}  # a long CJK run is more often a question than a word: bigrams
    for word in terms:
        pieces = _bigrams(word) if _CJK_RUN.fullmatch(word) and len(word) > 2 else [word]
        loose.update((piece, _fts_unit(piece)) for piece in pieces)
    strict = " AND ".join(_fts_unit(word) for word in terms)
    return ParsedQuery(words, strict, tuple(loose.items()))


def build_snippet(
    text: str, words: tuple[str, ...], width: int = 160, marks: tuple[str, str] = ("**", "**")
) -> str:
    """A one-line excerpt around the first query word found, each found word between `marks`
    (matching works on the NFKC/casefolded form, which keeps CJK and ASCII lengths).

    Credentials are redacted first, on the whole text: marks put inside one (`PRIVATE **KEY**`)
    would hide it from the scanner, and a cut could leave half of one.
    """
    from mini_letta.memory.secrets import redact_secrets

    flat = " ".join(redact_secrets(text).split())
    folded = normalise(flat)
    if len(folded) != len(flat):  # NFKC changed lengths (ligatures...): match on the fold
        flat = folded
    spans = _find_spans(folded, words)
    if not spans:
        return flat[:width] + ("…" if len(flat) > width else "")
    first = spans[0][0]
    start = max(0, first - width // 3)
    end = min(len(flat), start + width)
    pieces: list[str] = ["…" if start > 0 else ""]
    cursor = start
    for lo, hi in spans:
        if lo < cursor or hi > end:
            continue
        pieces += [flat[cursor:lo], marks[0], flat[lo:hi], marks[1]]
        cursor = hi
    pieces += [flat[cursor:end], "…" if end < len(flat) else ""]
    return "".join(pieces)


def _find_spans(folded: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for word in words:
        start = folded.find(word)
        while start != -1:
            spans.append((start, start + len(word)))
            start = folded.find(word, start + len(word))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged
