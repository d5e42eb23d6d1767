"""The mock reflection consolidating a memory file the task marks as over its budget.

A reflection task names each `system/` file at or over its per-file budget (reflection/run/task.py,
`<consolidate>`); before adding anything, the mock rewrites such a file's body in one
`str_replace`: exact repeats (compared without case, punctuation or list markers) keep their
first line (lines a later one on the same topic supersedes are left to the contradiction
handling, which cites the message that superseded them). Deterministic, decided only from the
request, like the rest of the mock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_CONSOLIDATE = re.compile(r'<consolidate path="([^"]+)"')


def files_to_consolidate(task: str) -> list[str]:
    """The paths the task asks to consolidate, in order."""
    return _CONSOLIDATE.findall(task)


def consolidated_lines(
    lines: list[str],
    topic_of: Callable[[str], tuple[str, str] | None],
    normal: Callable[[str], str],
    drop_superseded: bool = False,
) -> list[str]:
    """`lines` without exact repeats (and, with `drop_superseded`, without lines a later one on
    the same topic supersedes: the gate wants such a removal to cite a message naming it, so
    the run's own contradiction handling does that, not this tidy-up)."""
    last_of_topic: dict[str, int] = {}
    for index, line in enumerate(lines):
        topic = topic_of(line)
        if topic is not None:
            last_of_topic[topic[0]] = index
    kept: list[str] = []
    seen: set[str] = set()
    for index, line in enumerate(lines):
        key = normal(line)
        topic = topic_of(line)
        superseded = topic is not None and last_of_topic[topic[0]] != index
        if key in seen or (superseded and drop_superseded):
            continue
        seen.add(key)
        kept.append(line)
    return kept


def consolidation_edit(
    path: str,
    body: str,
    topic_of: Callable[[str], tuple[str, str] | None],
    normal: Callable[[str], str],
) -> dict[str, Any] | None:
    """One `memory` call rewriting `body` consolidated, or None when nothing repeats."""
    old = body.strip("\n")
    lines = [line for line in old.split("\n") if line.strip()]
    kept = consolidated_lines(lines, topic_of, normal)
    if len(kept) == len(lines):
        return None
    return {"command": "str_replace", "path": path, "old_str": old, "new_str": "\n".join(kept)}
