"""Memory budgets: the one computation of how large memory may grow, in tokens.

`system/` (always in the prompt) may take a share of the primary model's window, and any one
memory file, in `system/` or not, a smaller share. A change that grows what is over its budget
is refused by the reflection gate; a change that shrinks it, or brings it back under, passes.
Hand edits (`memory edit`, MCP, sync) are never refused for size, but are told at once when a
file they touched is over (`budget_warnings`). Sizes use the estimate every context decision
uses (`llm/tokens.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from mini_letta.errors import FrontmatterError
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.files import memory_file_paths, read_memory_bytes
from mini_letta.structs import Struct

SYSTEM_PERCENT = 25  # default: system/ may take a quarter of the primary model's window
FILE_PERCENT = 10  # default: one file may take a tenth of it


class MemoryBudget(Struct, frozen=True):
    system_tokens: int
    file_tokens: int

    @classmethod
    def for_window(
        cls, window: int, system_percent: int = SYSTEM_PERCENT, file_percent: int = FILE_PERCENT
    ) -> MemoryBudget:
        """The budgets as shares of `window` (reflection settings systemBudgetPercent and
        fileBudgetPercent)."""
        return cls(window * system_percent // 100, window * file_percent // 100)


def file_tokens(text: str) -> int:
    return estimate_tokens(text)


def lines_tokens(lines: Iterable[str]) -> int:
    """What lines of a diff weigh, each with its line break."""
    return sum(estimate_tokens(line) + 1 for line in lines)


class Overrun(Struct, frozen=True):
    path: str  # "system/" for the folder's total
    tokens: int
    limit: int

    def describe(self, verb: str = "is") -> str:
        what = "its budget" if self.path == "system/" else "the per-file cap"
        return f"{self.path} {verb} ~{self.tokens} tokens, past {what} of {self.limit}"


def over_budget(
    files: Mapping[str, str], budget: MemoryBudget, grown: Mapping[str, int] | None = None
) -> list[Overrun]:
    """What `files` (path -> text: every system/ file, plus any other file to check) hold
    past their budgets; with `grown` (path -> tokens added), only what grew counts."""
    sizes = {path: file_tokens(text) for path, text in files.items()}
    system = sum(tokens for path, tokens in sizes.items() if path.startswith("system/"))
    system_growth = sum(v for p, v in (grown or {}).items() if p.startswith("system/"))
    found: list[Overrun] = []
    if system > budget.system_tokens and (grown is None or system_growth > 0):
        found.append(Overrun("system/", system, budget.system_tokens))
    for path, tokens in sorted(sizes.items()):
        if tokens > budget.file_tokens and (grown is None or grown.get(path, 0) > 0):
            found.append(Overrun(path, tokens, budget.file_tokens))
    return found


def budget_warnings(root: Path, paths: Iterable[str], budget: MemoryBudget) -> list[str]:
    """After a hand edit of `paths` in the memory folder `root`: what is now over budget."""
    files = {p: text for p in paths if (text := _read(root, p)) is not None}
    touched = list(files)
    if not touched:
        return []
    if any(p.startswith("system/") for p in touched):
        for rel in memory_file_paths(root, "system"):
            if rel not in files and (text := _read(root, rel)) is not None:
                files[rel] = text
    return [
        over.describe()
        for over in over_budget(files, budget)
        if over.path == "system/" or over.path in touched
    ]


def _read(root: Path, rel: str) -> str | None:
    """The file's text as every memory reader reads it (a link or an odd file is never
    opened: None), or None when it is not there."""
    try:
        return read_memory_bytes(root, rel).decode("utf-8", "replace")
    except (OSError, FrontmatterError):
        return None
