"""Protected facts: memory lines that change or disappear only on the user's explicit word.

The persona's lines and any rule (always, never, ask before, 必须, 不要 …), and facts about
health, money, identity, dates and credentials are protected (memory/fact_kinds.py). Such a
line may be rewritten or removed only when a message the edit cites says the user's own words
of a change (no longer, switched, actually, 不再, 改成, 其实 …) about the same thing (a word it
shares with the line, or its topic: a name change that says "call me", a budget change that
says "预算"). Other lines need less: a cited message that shares a word with the line or says a
change at all."""

from __future__ import annotations

import re

from mini_letta.memory.fact_kinds import CHANGE, categories
from mini_letta.memory.words import plain_units
from mini_letta.reflection.gate.grounding import EvidencePool, has_unit

_I = re.IGNORECASE
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_TOPIC_WORDS: dict[str, re.Pattern[str]] = {
    "identity": re.compile(r"\bname\b|call me|\bcalled\b|我叫|叫我|名字|改名|生日|birthday", _I),
    "money": re.compile(r"budget|salary|price|cost|[$€£¥]|预算|工资|价格|费用|元", _I),
    "date": re.compile(r"deadline|\bdue\b|\bdate\b|moved|postponed|截止|日期|推迟|提前", _I),
}


def change_gap(path: str, line: str, pool: EvidencePool, words: str) -> str | None:
    """Why `words` (the cited user words) do not justify changing or removing `line`, or None.

    `pool` is built from `words`; a protected line needs an explicit change about the same
    thing, an ordinary one a shared word or any change."""
    if pool.empty:
        return "no words of the user are cited for it"
    shares = any(has_unit(pool, unit) for unit in plain_units(_MARKER.sub("", line)))
    kinds = categories(path, line)
    said_change = CHANGE.search(words) is not None
    if not kinds:
        return None if shares or said_change else "the cited messages do not mention it"
    topical = shares or any(
        pattern.search(words) for kind, pattern in _TOPIC_WORDS.items() if kind in kinds
    )
    if said_change and topical:
        return None
    kind = kinds[0]
    return f"a {kind} fact changes only when the user says so explicitly"
