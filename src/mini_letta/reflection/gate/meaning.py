"""The gate's meaning checks: every line a run adds or changes stands on what the user said.

For each body line a run adds, the evidence is the user's own words (`evidence.py`) of the
messages its edit cited (an edit that cites nothing is held to everything the user said in
the run's messages), plus memory's own earlier text that the run rewrote (a consolidation
restates it). An edit that cites only what the user did not say (assistant text, tool output,
a paste) stands on nothing. For each line a run removes or rewrites, either its facts survive
in the file's new lines (a move, a merge of duplicates), or an edit that removed it cites a
message that justifies it (`protected.py`). A line that runs a remote script or deletes files
must be in the user's words as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from mini_letta.memory.fact_kinds import categories
from mini_letta.memory.layout import DEFAULT_HUMAN, DEFAULT_PERSONA
from mini_letta.memory.words import plain_units
from mini_letta.reflection.gate.evidence import UserWords
from mini_letta.reflection.gate.grounding import (
    EvidencePool,
    build_pool,
    has_unit,
    is_fact_line,
    split_label,
    unsupported,
)
from mini_letta.reflection.gate.hunks import FileDiff, Hunk
from mini_letta.reflection.gate.protected import change_gap
from mini_letta.skills.validate import DANGEROUS_COMMAND
from mini_letta.structs import Struct

PLACEHOLDERS = frozenset(
    text.strip() for text in (DEFAULT_HUMAN, DEFAULT_PERSONA) for text in text.splitlines()
)
_SPACES = re.compile(r"\s+")
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")


class CitedEdit(Struct, frozen=True):
    """One edit's citation as the meaning checks need it (see `gate.Citation`)."""

    path: str
    message_ids: tuple[str, ...]
    lines: tuple[str, ...]
    removed: tuple[str, ...] | None  # None: not known (the edit's removed text was not kept)


def meaning_reasons(
    diffs: Sequence[FileDiff],
    edits: Sequence[CitedEdit],
    words: Mapping[str, UserWords],
    files: Mapping[str, str],
) -> list[str]:
    """A reason per file whose new or removed lines are not justified by their evidence;
    `files` holds the new text of the changed files."""
    checker = _Checker(diffs, edits, words, files)
    reasons: list[str] = []
    for diff in diffs:
        reasons += checker.additions(diff)
        reasons += checker.removals(diff)
    return reasons


class _Checker:
    def __init__(
        self,
        diffs: Sequence[FileDiff],
        edits: Sequence[CitedEdit],
        words: Mapping[str, UserWords],
        files: Mapping[str, str],
    ) -> None:
        self.files = files
        self.diffs = diffs
        self.edits = edits
        self.words = words
        self.memory_text = [line for diff in diffs for _, line in diff.body_removed()]
        self.pools: dict[tuple[str, ...], EvidencePool] = {}
        self.added_norm = {
            diff.path: {_norm(line) for _, line in diff.body_added()} for diff in diffs
        }

    def pool(self, ids: tuple[str, ...], memory: bool = True) -> EvidencePool:
        key = (*ids, "\0memory" if memory else "")
        if key not in self.pools:
            said = [self.words[i] for i in ids if i in self.words]
            texts = [w.text for w in said] + (self.memory_text if memory else [])
            self.pools[key] = build_pool(texts, [w.created_at for w in said])
        return self.pools[key]

    def additions(self, diff: FileDiff) -> list[str]:
        removed_anywhere = {_norm(line) for line in self.memory_text}
        for hunk, line in diff.body_added():
            text = line.strip()
            if not is_fact_line(text) or _norm(text) in removed_anywhere:
                continue
            cited = self._covering(diff.path, text, _adds)
            ids = self._user_ids(cited) if cited else tuple(self.words)
            if cited and not ids:
                return [f"{diff.path}: {_short(text)} cites no words of the user's own"]
            gap = unsupported(text, self.pool(ids), _replaced(hunk, text))
            if gap is not None:
                where = "the cited messages" if cited else "anything the user said"
                return [
                    f"{diff.path}: {_short(text)} is not supported by {where} ({gap} not found)"
                ]
            danger = DANGEROUS_COMMAND.search(text)
            if danger and not self._said_verbatim(danger.group(0), ids):
                return [f"{diff.path}: {_short(text)} runs a command the user never gave"]
        return []

    def removals(self, diff: FileDiff) -> list[str]:
        uncited: list[str] = []
        for _, line in diff.body_removed():
            text = line.strip()
            if not is_fact_line(text) or text in PLACEHOLDERS or self._survives(diff, text):
                continue
            cited = self._covering(diff.path, text, _removes)
            if not cited:
                uncited.append(text)
                continue
            ids = self._user_ids(cited)
            said = "\n".join(self.words[i].text for i in ids)
            gap = change_gap(diff.path, text, self.pool(ids, memory=False), said)
            if gap is not None:
                return [f"{diff.path}: changes or removes {_short(text)}: {gap}"]
        if uncited:
            return [
                f"{diff.path} changes or removes {len(uncited)} existing line(s) without citing "
                f"evidence ({_short(uncited[0])})"
            ]
        return []

    def _survives(self, diff: FileDiff, text: str) -> bool:
        """Its facts are still said: the same line elsewhere, or the file's new lines hold it."""
        norm = _norm(text)
        in_system = diff.path.startswith("system/")
        protected = bool(categories(diff.path, text))
        for other, lines in self.added_norm.items():
            moved_out = in_system and not other.startswith("system/")
            if norm in lines and (other == diff.path or not (protected and moved_out)):
                return True
        body = self.files.get(diff.path, "").split("\n")[diff.frontmatter :]
        kept = [line for line in body if is_fact_line(line)]
        if not kept:
            return False
        pool = build_pool(kept)
        units = plain_units(_MARKER.sub("", text))  # the label too: "Allergy" is a fact
        return all(has_unit(pool, unit) for unit in units) and unsupported(text, pool) is None

    def _covering(
        self, path: str, text: str, test: Callable[[CitedEdit, str], bool]
    ) -> list[CitedEdit]:
        """The edits of `path` that wrote (or removed) a line; old-style citations, which
        kept no lines, cover the whole file."""
        mine = [e for e in self.edits if e.path == path]
        exact = [e for e in mine if e.removed is not None and test(e, text)]
        if exact:
            return exact
        unknown = [e for e in mine if e.removed is None]
        return [e for e in unknown if test(e, text)] or unknown

    def _user_ids(self, cited: list[CitedEdit]) -> tuple[str, ...]:
        ids = dict.fromkeys(i for e in cited for i in e.message_ids if i in self.words)
        return tuple(i for i in ids if self.words[i].text.strip())

    def _said_verbatim(self, command: str, ids: tuple[str, ...]) -> bool:
        wanted = _SPACES.sub(" ", command.strip().lower())
        return any(wanted in _SPACES.sub(" ", self.words[i].text.lower()) for i in ids)


def _adds(edit: CitedEdit, text: str) -> bool:
    if edit.removed is None and not edit.lines:
        return True  # an old-style citation: it covers the whole file
    return any(piece and (piece == text or piece in text) for piece in edit.lines)


def _removes(edit: CitedEdit, text: str) -> bool:
    if edit.removed is None:
        return True
    return any(piece and (piece == text or piece in text) for piece in edit.removed)


def _replaced(hunk: Hunk, text: str) -> str | None:
    """The removed line of the hunk that `text` most likely rewrites (most shared words)."""
    candidates = [r for r in hunk.removed if is_fact_line(r) and r.strip() not in PLACEHOLDERS]
    if not candidates:
        return None
    mine = set(plain_units(split_label(text)[0]))
    best = max(candidates, key=lambda old: len(mine & set(plain_units(split_label(old)[0]))))
    if not mine & set(plain_units(split_label(best)[0])) and len(candidates) != 1:
        return None
    return best


def _norm(line: str) -> str:
    return re.sub(r"[\s\W_]+", "", split_label(line)[0]).casefold()


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
