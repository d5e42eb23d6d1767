"""The memory gate: what a reflection run may merge without a human looking.

It reads the run's diff against its base (made from the files the run's tools kept when it
is certain to be git's, `filediff.py`, else one `git diff`; the checkout's files) and names
every reason to hold the run back:
- `system/` past its token budget, any file past the per-file cap (only when they grew), or a
  run that adds more than its share (`context/memory_budget.py`);
- a verbatim dump: 3 consecutive added lines, or a stretch of `DUMP_CHARS` characters, copied
  from the transcript, in any shape (role-prefixed lines, JSON lines, quoted blocks; hash sets
  of lines and of aligned windows, linear time). What the user dictated and the edit cites is
  kept as they said it, up to `VERBATIM_CHARS`;
- a duplicate: an added line equal to another line of the same file after normalisation;
- a line not supported by the user's words it cites, or a removed or rewritten line without
  evidence that justifies it (`meaning.py`); a citation outside the run's slice; a deleted
  `system/` file (never automatic);
- invalid frontmatter, a file outside the memory layout, a secret.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta.context.memory_budget import MemoryBudget, lines_tokens, over_budget
from mini_letta.errors import FrontmatterError, MemfsError, MemoryEditError
from mini_letta.memory.files import read_memory_bytes
from mini_letta.memory.frontmatter import parse_memory_file
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.repo import GitRepo
from mini_letta.memory.secrets import find_secret
from mini_letta.reflection.gate.hunks import FileDiff, frontmatter_lines, parse_diff
from mini_letta.structs import Struct, field

if TYPE_CHECKING:
    from mini_letta.reflection.gate.evidence import UserWords

DUMP_CHARS = 200
DUMP_LINES = 3
VERBATIM_CHARS = 2_000  # what a run may keep word for word of what the user dictated
_WINDOW = DUMP_CHARS // 2  # any copied stretch of DUMP_CHARS holds one aligned window
_MIN_LINE = 12  # shorter lines (headings, "- yes") are too common to call copied or duplicate
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)
_ROLE = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*|\[)?(?:user|assistant|human|ai|system|tool|用户|助手|系统)"
    r"(?:\*\*|\])?\s*[:：]\s*",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"^\s*(?:>\s*)+")
_MIN_NORMAL = _MIN_LINE // 2
GateLimits = MemoryBudget  # the gate's budgets are memory's budgets


class Citation(Struct, frozen=True):
    """One memory edit's `evidence`: the message ids it cites for a file."""

    path: str
    message_ids: tuple[str, ...]
    lines: tuple[str, ...] = ()  # the lines the edit wrote, stripped: what `memory why` matches
    removed: tuple[str, ...] | None = None  # the text it replaced or removed (None: not kept)


class GateInput(Struct, frozen=True):
    transcript: Sequence[str]  # the payload messages' texts
    slice_ids: frozenset[str]
    citations: Sequence[Citation] = ()
    limits: MemoryBudget = field(default_factory=lambda: MemoryBudget.for_window(128_000))
    messages: Sequence[Mapping[str, Any]] = ()  # the payload messages: the user's words in them


def check_gate(
    repo: GitRepo,
    base: str,
    tip: str,
    tree: Path,
    facts: GateInput,
    diffs: list[FileDiff] | None = None,
) -> list[str]:
    """Every reason not to merge `base..tip`, each one short line; [] lets it through.

    `tree` is a clean checkout of `tip` (the run's worktree): reading its files is several
    times faster than reading a thousand loose git objects. `diffs` is the diff when the
    caller made it as git would (`filediff.py`); None: git is asked.
    """
    if diffs is None:
        diffs = parse_diff(repo.run("diff", "--no-renames", "-U0", "--no-color", base, tip))
    if not diffs:
        return []
    # The rules on meaning compile many patterns: loaded when a run has something to judge,
    # not by every process that only asks for the budgets (GateLimits) or normalise_line.
    from mini_letta.reflection.gate.evidence import build_user_words
    from mini_letta.reflection.gate.meaning import CitedEdit, meaning_reasons
    from mini_letta.skills.validate import check_skill_edits, is_skill_path, said_by_id

    changed = [d.path for d in diffs if d.status != "deleted"]
    files = _read_files(tree, [*_system_paths(tree), *changed])
    for diff in diffs:
        lines = files.get(diff.path, "").split("\n") if diff.status != "deleted" else diff.removed
        diff.frontmatter = frontmatter_lines(lines)
    words = build_user_words(facts.messages)
    reasons: list[str] = []
    reasons += _layout_reasons(repo, diffs, files)
    reasons += _budget_reasons(diffs, files, facts.limits)
    reasons += _dump_reasons(diffs, facts, words)
    reasons += _duplicate_reasons(diffs, files)
    reasons += _evidence_reasons(diffs, facts)
    if not reasons:  # a skill's lines are steps and code, grounded by its own command check
        notes = [d for d in diffs if not is_skill_path(d.path)]
        edits = [CitedEdit(c.path, c.message_ids, c.lines, c.removed) for c in facts.citations]
        reasons += meaning_reasons(notes, edits, words, files)

    changes = [(d.path, d.status, d.added) for d in diffs]
    cited = [(c.path, c.message_ids) for c in facts.citations]
    return reasons + check_skill_edits(changes, files, cited, said_by_id(facts.messages))


def _system_paths(root: Path) -> list[str]:
    found: list[str] = []
    for folder, dirs, names in os.walk(root / "system"):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = Path(folder).relative_to(root).as_posix()
        found += [f"{rel}/{name}" for name in names if name.endswith(".md")]
    return found


def _read_files(root: Path, paths: Iterable[str]) -> dict[str, str]:
    files: dict[str, str] = {}
    for rel in paths:
        try:
            files[rel] = read_memory_bytes(root, rel).decode("utf-8", "replace")
        except (OSError, MemfsError):
            continue  # not a plain file in the checkout: the layout check names it
    return files


def normalise_line(line: str) -> str:
    """A line as the duplicate check compares it: no list marker, case, spaces or punctuation."""
    return _PUNCT.sub("", _MARKER.sub("", line)).casefold()


def _layout_reasons(repo: GitRepo, diffs: list[FileDiff], new: Mapping[str, str]) -> list[str]:
    reasons: list[str] = []
    for diff in diffs:
        if diff.status == "deleted":
            if diff.path.startswith("system/"):
                reasons.append(
                    f"deletes {diff.path} (a system/ file is never deleted automatically)"
                )
            continue
        try:
            resolve_memory_path(repo.path, diff.path)
        except MemoryEditError:
            reasons.append(f"writes {diff.path}, outside the memory layout")
            continue
        text = new.get(diff.path, "")
        try:
            parse_memory_file(text, diff.path)
        except FrontmatterError as exc:
            reasons.append(f"invalid frontmatter in {diff.path} ({exc})")
        secret = find_secret("\n".join(diff.added))
        if secret:
            reasons.append(f"a secret ({secret}) in {diff.path}")
    return reasons


def _budget_reasons(
    diffs: list[FileDiff], new: Mapping[str, str], limits: MemoryBudget
) -> list[str]:
    """Sizes before the run follow from the diff: after, minus what it added, plus what it
    removed (so the base tree is never read). Every file has the per-file cap, not only
    `system/` ones; what the run shrinks passes even when it is still over."""
    growth = {d.path: lines_tokens(d.added) - lines_tokens(d.removed) for d in diffs}
    return [over.describe("would grow to") for over in over_budget(new, limits, growth)]


def _dump_reasons(
    diffs: list[FileDiff], facts: GateInput, words: Mapping[str, UserWords]
) -> list[str]:
    lines = {line.strip() for text in facts.transcript for line in text.split("\n")}
    windows: dict[str, tuple[str, int]] = {}
    for text in facts.transcript:
        for start in range(0, len(text) - _WINDOW + 1, _WINDOW):
            windows.setdefault(text[start : start + _WINDOW], (text, start))
    reasons: list[str] = []
    for diff in diffs:
        dictated = _dictated(diff.path, facts.citations, words)
        run, shaped, kept = 0, 0, 0
        copied = False
        for line in diff.added:
            text, is_shaped = _unshaped(line)
            shaped += is_shaped
            found = len(text) >= _MIN_LINE and text in lines
            if found and _in(text, dictated) and kept + len(text) <= VERBATIM_CHARS:
                kept += len(text)
                found = False  # the user said it to be kept, and the edit cites it
            run = run + 1 if found else 0
            long_copy = _has_long_copy(text, windows)
            if long_copy and _in(text, dictated) and kept + len(text) <= VERBATIM_CHARS:
                kept, long_copy = kept + len(text), False
            copied = copied or run >= DUMP_LINES or long_copy
        if copied or shaped >= DUMP_LINES:
            reasons.append(f"{diff.path} copies the transcript verbatim (a dump, not a memory)")
    return reasons


def _unshaped(line: str) -> tuple[str, bool]:
    """A dumped line's text without its shape (quote marks, a role prefix, a JSON record), and
    whether it had a transcript's shape (a role prefix or a JSON message record)."""
    text = _QUOTE.sub("", _MARKER.sub("", line.strip())).strip()
    role = _ROLE.match(text)
    if role:
        return text[role.end() :].strip(), True
    if text.startswith("{") and text.endswith("}"):
        try:
            record = json.loads(text)
        except ValueError:
            return text, False
        if isinstance(record, dict) and ({"role", "content", "text"} & set(record)):
            said = record.get("content", record.get("text", ""))
            return (said if isinstance(said, str) else text).strip(), True
    return text, False


def _dictated(path: str, citations: Sequence[Citation], words: Mapping[str, UserWords]) -> str:
    """The user's own words of the messages the edits of `path` cite."""
    ids = dict.fromkeys(i for c in citations if c.path == path for i in c.message_ids)
    return "\n".join(words[i].text for i in ids if i in words)


def _in(text: str, dictated: str) -> bool:
    """Whether `text` (or its content after a short label) is what the user dictated."""
    from mini_letta.reflection.gate.grounding import split_label

    return bool(dictated) and (text in dictated or split_label(text)[0] in dictated)


def _has_long_copy(line: str, windows: Mapping[str, tuple[str, int]]) -> bool:
    """A stretch of at least DUMP_CHARS in `line` that is in the transcript: an aligned window
    found by hash, then grown both ways to the whole copied stretch (a sentence of 100-odd
    characters kept in the user's words is not a dump)."""
    for i in range(len(line) - _WINDOW + 1):
        hit = windows.get(line[i : i + _WINDOW])
        if hit is None:
            continue
        text, start = hit
        left, right, room = 0, _WINDOW, DUMP_CHARS - _WINDOW  # grow no further than needed
        while left < min(i, start, room) and line[i - left - 1] == text[start - left - 1]:
            left += 1
        while left + right < DUMP_CHARS and i + right < len(line) and start + right < len(text):
            if line[i + right] != text[start + right]:
                break
            right += 1
        if left + right >= DUMP_CHARS:
            return True
    return False


def _duplicate_reasons(diffs: list[FileDiff], files: Mapping[str, str]) -> list[str]:
    """Added lines that normalise like another line of the same file (the same line in two
    files is not a duplicate: two projects may both use Python). The changed files are
    already read from the checkout, so each distinct line is normalised once, in Python: no
    `git grep` process, and linear in the files' size."""
    reasons: list[str] = []
    for diff in diffs:
        added = [line for _, line in diff.body_added()]
        wanted = {norm for line in added if len(norm := normalise_line(line)) >= _MIN_NORMAL}
        text = files.get(diff.path)
        if not wanted or text is None or "\0" in text:  # git grep -I skipped binary files
            continue
        counts: Counter[str] = Counter()
        for line, times in Counter(text.split("\n")).items():
            norm = normalise_line(line)
            if norm in wanted:
                counts[norm] += times
        dupes = sorted(line.strip() for line in added if counts[normalise_line(line)] > 1)
        if dupes:
            reasons.append(f"{diff.path} duplicates what memory already says: {dupes[0]!r}")
    return reasons


def _evidence_reasons(diffs: list[FileDiff], facts: GateInput) -> list[str]:
    cited: dict[str, set[str]] = {}
    for citation in facts.citations:
        cited.setdefault(citation.path, set()).update(citation.message_ids)
    reasons: list[str] = []
    for diff in diffs:
        outside = sorted(cited.get(diff.path, set()) - facts.slice_ids)
        if outside:
            reasons.append(f"{diff.path} cites {', '.join(outside)}, not in this run's messages")
    return reasons
