"""The files under a folder as the user sees their project: .gitignore'd files left out.

Never `git`: a project's git config is writable by the model (and by whoever made the
repository), and git runs programs it names (`core.fsmonitor` on `git ls-files`). The rules are
`.git/info/exclude` and the .gitignore files from the repository's top down to each folder,
each file matched by `pathspec`'s `GitIgnoreSpec` (git's wildmatch: `**`, `/`-anchoring, a
trailing `/` for folders, `!` to re-include, escapes; braces are literal, as in git), a deeper
file's match winning. Unlike git, a tracked file that matches an ignore rule is left out too,
and the user's global excludes file is not read. `.git` is always skipped, symlinked folders
are not entered, an ignored folder is not entered (so nothing under it comes back, as in git),
and the walk stops after `MAX_FILES`. `glob_to_regex` is the Glob tool's pattern language.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from mini_letta.structs import Struct

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

MAX_FILES = 50_000


class FileList(Struct, frozen=True):
    root: Path
    paths: tuple[str, ...]  # relative to root, '/'-separated, sorted
    truncated: bool = False


@lru_cache(maxsize=256)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over '/'-separated relative paths: `*`, `?`, `[…]`, `{a,b}`, `**`."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            i = end
        elif char == "{" and "}" in pattern[i + 1 :]:
            end = pattern.index("}", i + 1)
            options = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(re.escape(option) for option in options) + ")")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def list_files(root: Path) -> FileList:
    """Every non-ignored file under `root` (a folder), as `root`-relative '/'-paths."""
    top = _repository_top(root)
    lead = "" if top is None else root.relative_to(top).as_posix()
    lead = "" if lead == "." else lead
    rules = [] if top is None else _outer_rules(top, lead)
    return _walk(root, lead, rules)


def _repository_top(root: Path) -> Path | None:
    """The nearest folder at or above `root` that holds a `.git`, if any."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _outer_rules(top: Path, lead: str) -> list[_Rules]:
    """The repository's exclude file and the .gitignore files above the walk's root."""
    rules = _parse_gitignore(_read_text(top / ".git" / "info" / "exclude"), "")
    folder = ""
    for part in lead.split("/") if lead else []:
        rules += _parse_gitignore(_read_text(top / folder / ".gitignore"), folder)
        folder = f"{folder}/{part}" if folder else part
    return rules


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


class _Rules(Struct, frozen=True):
    """One ignore file's patterns; `base` is its folder relative to the repository top."""

    base: str
    spec: GitIgnoreSpec  # imported when a project has an ignore file


def _parse_gitignore(text: str, base: str) -> list[_Rules]:
    lines = text.splitlines()
    if not any(line.strip() and not line.startswith("#") for line in lines):
        return []
    from pathspec import GitIgnoreSpec

    return [_Rules(base, GitIgnoreSpec.from_lines(lines))]


def _ignored(rel: str, is_dir: bool, rules: list[_Rules]) -> bool:
    """Git's answer for `rel` (a path from the repository top): the last file that matches it
    decides, and within a file its last matching pattern."""
    ignored = False
    for rule in rules:
        if rule.base and not rel.startswith(rule.base + "/"):
            continue
        local = rel[len(rule.base) + 1 :] if rule.base else rel
        decision = rule.spec.check_file(local + "/" if is_dir else local).include
        if decision is not None:
            ignored = decision
    return ignored


def _walk(root: Path, lead: str, outer: list[_Rules]) -> FileList:
    """Walk `root`; rules match paths relative to the repository top (`lead` + '/' + rel)."""
    found: list[str] = []
    rules = list(outer)
    above = lead + "/" if lead else ""
    for folder, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(folder, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        prefix = rel_dir + "/" if rel_dir else ""
        if ".gitignore" in files:
            rules = rules + _parse_gitignore(
                _read_text(Path(folder) / ".gitignore"), (above + rel_dir).rstrip("/")
            )
        dirs[:] = sorted(
            name
            for name in dirs
            if name != ".git" and not _ignored(above + prefix + name, True, rules)
        )
        for name in sorted(files):
            rel = prefix + name
            if name != ".git" and not _ignored(above + rel, False, rules):
                found.append(rel)
                if len(found) > MAX_FILES:
                    return FileList(root, tuple(sorted(found[:MAX_FILES])), True)
    return FileList(root, tuple(sorted(found)))
