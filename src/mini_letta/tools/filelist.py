"""The files under a folder as the user sees their project: .gitignore'd files left out.

Inside a git work tree the list comes from `git ls-files` (tracked plus untracked, minus what
git ignores). Elsewhere a small matcher reads the .gitignore files met on the way down (globs,
`**`, `/`-anchoring, trailing `/` for folders, `!` to re-include). `.git` is always skipped,
and the walk stops after `MAX_FILES`, so pointing a tool at a huge folder stays bounded.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MAX_FILES = 50_000


@dataclass(frozen=True, slots=True)
class FileList:
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
    """Every non-ignored file under `root` (a folder)."""
    from_git = _git_files(root)
    if from_git is not None:
        return from_git
    return _walk(root)


def _git_files(root: Path) -> FileList | None:
    try:
        proc = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None  # not a work tree (or no git): walk instead
    names = sorted({name for name in proc.stdout.decode("utf-8", "replace").split("\0") if name})
    existing = [name for name in names if (root / name).is_file()]
    truncated = len(existing) > MAX_FILES
    return FileList(root, tuple(existing[:MAX_FILES]), truncated)


@dataclass(frozen=True, slots=True)
class _Rule:
    base: str  # the folder of the .gitignore, relative to the walk root ('' at the root)
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _parse_gitignore(text: str, base: str) -> list[_Rule]:
    rules = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line[1:] if negate else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        pattern = line if anchored else "**/" + line
        rules.append(_Rule(base, glob_to_regex(pattern), negate, dir_only))
    return rules


def _ignored(rel: str, is_dir: bool, rules: list[_Rule]) -> bool:
    ignored = False
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base and not rel.startswith(rule.base + "/"):
            continue
        local = rel[len(rule.base) + 1 :] if rule.base else rel
        if rule.regex.match(local):
            ignored = not rule.negate
    return ignored


def _walk(root: Path) -> FileList:
    found: list[str] = []
    rules: list[_Rule] = []
    for folder, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(folder, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        if ".gitignore" in files:
            try:
                text = (Path(folder) / ".gitignore").read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            rules = rules + _parse_gitignore(text, rel_dir)
        prefix = rel_dir + "/" if rel_dir else ""
        dirs[:] = sorted(
            name for name in dirs if name != ".git" and not _ignored(prefix + name, True, rules)
        )
        for name in sorted(files):
            rel = prefix + name
            if not _ignored(rel, False, rules):
                found.append(rel)
                if len(found) > MAX_FILES:
                    return FileList(root, tuple(sorted(found[:MAX_FILES])), True)
    return FileList(root, tuple(sorted(found)))
