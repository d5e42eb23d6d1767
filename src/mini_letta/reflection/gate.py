"""The memory gate: what a reflection run may merge without a human looking.

It reads the run branch's diff against its base (one `git diff`, one batched blob read) and
names every reason to hold the run back:
- `system/` past its token budget, or one file past the per-file cap (only when they grew);
- a verbatim dump: 3 consecutive added lines, or a stretch of `DUMP_CHARS` characters, copied
  from the transcript (hash sets of lines and of aligned windows, a hit grown to the whole
  copied stretch, at most `DUMP_CHARS` each: linear time);
- a duplicate: an added line equal to another memory line after normalisation;
- a changed or removed existing line in a file whose edits cite no evidence, or cite a message
  that is not in the run's slice; a deleted `system/` file (never automatic);
- invalid frontmatter, a file outside the memory layout, a secret.
A run may add freely. The starter placeholders (`memory/layout.py`) may be replaced freely.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from mini_letta.errors import FrontmatterError, MemfsError, MemoryEditError
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.files import read_memory_bytes
from mini_letta.memory.frontmatter import parse_memory_file
from mini_letta.memory.layout import DEFAULT_HUMAN, DEFAULT_PERSONA
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.repo import GitRepo
from mini_letta.memory.secrets import find_secret
from mini_letta.structs import Struct, field

SYSTEM_PERCENT = 25  # default: system/ may take a quarter of the primary model's window
FILE_PERCENT = 10  # default: one file may take a tenth of it
DUMP_CHARS = 200
DUMP_LINES = 3
_WINDOW = DUMP_CHARS // 2  # any copied stretch of DUMP_CHARS holds one aligned window
_MIN_LINE = 12  # shorter lines (headings, "- yes") are too common to call copied or duplicate
_PLACEHOLDERS = frozenset(
    text.strip() for text in (DEFAULT_HUMAN, DEFAULT_PERSONA) for text in text.splitlines()
)
_MARKER = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_MIN_NORMAL = _MIN_LINE // 2


class GateLimits(Struct, frozen=True):
    system_tokens: int
    file_tokens: int

    @classmethod
    def for_window(
        cls, window: int, system_percent: int = SYSTEM_PERCENT, file_percent: int = FILE_PERCENT
    ) -> GateLimits:
        """The budgets as shares of `window` (reflection settings systemBudgetPercent and
        fileBudgetPercent)."""
        return cls(window * system_percent // 100, window * file_percent // 100)


class Citation(Struct, frozen=True):
    """One memory edit's `evidence`: the message ids it cites for a file."""

    path: str
    message_ids: tuple[str, ...]
    lines: tuple[str, ...] = ()  # the lines the edit wrote, stripped: what `memory why` matches


class GateInput(Struct, frozen=True):
    transcript: Sequence[str]  # the payload messages' texts
    slice_ids: frozenset[str]
    citations: Sequence[Citation] = ()
    limits: GateLimits = field(default_factory=lambda: GateLimits.for_window(128_000))


class _FileDiff(Struct):
    path: str
    status: str = "modified"  # added, modified, deleted
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def check_gate(repo: GitRepo, base: str, tip: str, tree: Path, facts: GateInput) -> list[str]:
    """Every reason not to merge `base..tip`, each one short line; [] lets it through.

    `tree` is a clean checkout of `tip` (the run's worktree): reading its files is several
    times faster than reading a thousand loose git objects.
    """
    diffs = _parse_diff(repo.run("diff", "--no-renames", "-U0", "--no-color", base, tip))
    if not diffs:
        return []
    changed = [d.path for d in diffs if d.status != "deleted"]
    system = _read_files(tree, [*_system_paths(tree), *changed])
    reasons: list[str] = []
    reasons += _layout_reasons(repo, diffs, system)
    reasons += _budget_reasons(diffs, system, facts.limits)
    reasons += _dump_reasons(diffs, facts.transcript)
    reasons += _duplicate_reasons(GitRepo(tree), diffs)
    reasons += _evidence_reasons(diffs, facts)
    return reasons


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


def _parse_diff(text: str) -> list[_FileDiff]:
    diffs: list[_FileDiff] = []
    current: _FileDiff | None = None
    in_hunk = False
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            current = _FileDiff(line.split(" b/", 1)[-1])
            diffs.append(current)
            in_hunk = False
        elif current is None:
            continue
        elif line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            current.added.append(line[1:])
        elif in_hunk and line.startswith("-"):
            current.removed.append(line[1:])
        elif not in_hunk and line.startswith("new file mode"):
            current.status = "added"
        elif not in_hunk and line.startswith("deleted file mode"):
            current.status = "deleted"
    return diffs


def _layout_reasons(repo: GitRepo, diffs: list[_FileDiff], new: Mapping[str, str]) -> list[str]:
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
    diffs: list[_FileDiff], new: Mapping[str, str], limits: GateLimits
) -> list[str]:
    """Sizes before the run follow from the diff: after, minus what it added, plus what it
    removed (so the base tree is never read)."""
    after = {p: estimate_tokens(t) for p, t in new.items() if p.startswith("system/")}
    growth = {
        d.path: _lines_tokens(d.added) - _lines_tokens(d.removed)
        for d in diffs
        if d.path.startswith("system/")
    }
    reasons: list[str] = []
    total = sum(after.values())
    if total > limits.system_tokens and sum(growth.values()) > 0:
        reasons.append(
            f"system/ would grow to ~{total} tokens, past its budget of {limits.system_tokens}"
        )
    for path, tokens in sorted(after.items()):
        if tokens > limits.file_tokens and growth.get(path, 0) > 0:
            reasons.append(
                f"{path} would grow to ~{tokens} tokens, past the per-file cap of "
                f"{limits.file_tokens}"
            )
    return reasons


def _lines_tokens(lines: list[str]) -> int:
    return sum(estimate_tokens(line) + 1 for line in lines)


def _dump_reasons(diffs: list[_FileDiff], transcript: Sequence[str]) -> list[str]:
    lines = {line.strip() for text in transcript for line in text.split("\n")}
    windows: dict[str, tuple[str, int]] = {}
    for text in transcript:
        for start in range(0, len(text) - _WINDOW + 1, _WINDOW):
            windows.setdefault(text[start : start + _WINDOW], (text, start))
    reasons: list[str] = []
    for diff in diffs:
        run = 0
        copied = False
        for line in diff.added:
            run = run + 1 if len(line.strip()) >= _MIN_LINE and line.strip() in lines else 0
            copied = copied or run >= DUMP_LINES or _has_long_copy(line, windows)
        if copied:
            reasons.append(f"{diff.path} copies the transcript verbatim (a dump, not a memory)")
    return reasons


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


def _duplicate_reasons(checkout: GitRepo, diffs: list[_FileDiff]) -> list[str]:
    """Added lines that normalise like another memory line. `git grep` over the checkout
    finds the candidate lines (those holding the added line's longest word), so only they are
    normalised, not the whole memory."""
    added = {
        norm: line.strip()
        for diff in diffs
        for line in diff.added
        if len(norm := normalise_line(line)) >= _MIN_NORMAL
    }
    words = {_longest_word(line) for line in added.values()} - {""}
    if not words:
        return []
    patterns = [arg for word in sorted(words) for arg in ("-e", word)]
    output = checkout.run("grep", "-h", "-F", "-i", "-I", "--no-color", *patterns, check=False)
    counts = Counter(normalise_line(line) for line in output.split("\n"))
    reasons: list[str] = []
    for diff in diffs:
        dupes = sorted(line.strip() for line in diff.added if counts[normalise_line(line)] > 1)
        dupes = [line for line in dupes if normalise_line(line) in added]
        if dupes:
            reasons.append(f"{diff.path} duplicates what memory already says: {dupes[0]!r}")
    return reasons


def _longest_word(line: str) -> str:
    return max(_WORD.findall(_MARKER.sub("", line)), key=len, default="")


def _evidence_reasons(diffs: list[_FileDiff], facts: GateInput) -> list[str]:
    cited: dict[str, set[str]] = {}
    for citation in facts.citations:
        cited.setdefault(citation.path, set()).update(citation.message_ids)
    reasons: list[str] = []
    for diff in diffs:
        ids = cited.get(diff.path, set())
        outside = sorted(ids - facts.slice_ids)
        if outside:
            reasons.append(f"{diff.path} cites {', '.join(outside)}, not in this run's messages")
            continue
        if diff.status == "deleted" and diff.path.startswith("system/"):
            continue  # already a reason of its own
        changed = [
            line for line in diff.removed if line.strip() and line.strip() not in _PLACEHOLDERS
        ]
        if diff.status != "added" and changed and not ids:
            reasons.append(
                f"{diff.path} changes or removes {len(changed)} existing line(s) without citing "
                "evidence"
            )
    return reasons
