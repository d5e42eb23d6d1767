"""The words that carry a memory line's content: the one vocabulary the gate's grounding
(reflection/grounding.py) and the mock reflection model (llm/mock_reflection.py) compare lines
by, so the mock's judgement of "this message speaks of that line" is the gate's.

English words count without stop words and by a five-letter stem; Chinese by character pairs.
Linear in the text.
"""

from __future__ import annotations

import re

ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
STOP = frozenset(
    " ".join(
        (
            "a an the and or but if of to in on at by for with from as is are was were be",
            "been being am do does did has have had it its this that these those there here i",
            "me my mine we us our you your he she they them their his her who what which when",
            "where how why so than then too very just also about into out up down over only",
            "own same some any all each both more most other such can will would should could",
            "may might shall let lets user users person people likes like prefers prefer",
            "preference preferences uses use using used wants want said says say told",
            "mentioned noted note notes thinks think feel feels currently now always never",
            "not no yes via per etc new one ones thing things way fact facts decision",
            "decisions decided rule rules none nothing nobody without cannot",
        )
    ).split()
)


def plain_units(text: str) -> list[str]:
    """The words and Chinese character pairs that carry a line's content (no stop words)."""
    words = [w.lower() for w in ASCII_WORD.findall(text)]
    return [w for w in words if len(w) > 1 and w not in STOP] + pairs(text)


def pairs(text: str) -> list[str]:
    """Adjacent Chinese characters; a lone character (a unit after a number, 用 before a
    name) carries too little to count."""
    found: list[str] = []
    for run in CJK.findall(text):
        found += [run[i : i + 2] for i in range(len(run) - 1)]
    return found


def stem(word: str) -> str:
    word = word.lower()
    return word[:5] if len(word) > 5 else word.rstrip("s") or word


def shares_unit(text: str, line: str) -> bool:
    """Whether `text` holds one of the content words of memory line `line` (its label too: a
    removal is judged with it). Never more generous than the gate's own test."""
    words = {w.lower() for w in ASCII_WORD.findall(text)}
    stems = {stem(w) for w in words}
    found = set(pairs(text))
    for unit in plain_units(_MARKER.sub("", line)):
        if CJK.fullmatch(unit):
            if unit in found:
                return True
        elif unit in words or stem(unit) in stems:
            return True
    return False
