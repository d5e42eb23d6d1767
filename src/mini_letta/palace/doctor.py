"""`memory doctor`: an audit of memory as it is now (the working tree), finding by finding.

Each finding has a severity, a file and line, what is wrong and what to do. `severe` is what
breaks the prompt or leaks: a secret, broken frontmatter, a file that is not a regular file, a
file or `system/` over its budget (the memory gate's, a share of the model's window).
`warning` is what misleads the agent: duplicates, near-duplicates, contradictions, files the
prompt never points to. `info` is what a person may want to tidy: placeholders and lines whose
origin cannot be shown (uncommitted, or written by a reflection run that cited nothing).
Reads only; `--fix` hands the findings to a reflection run (`fix_instruction`).
"""

from __future__ import annotations

import bisect
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from mini_letta.errors import FrontmatterError
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.files import read_memory_bytes
from mini_letta.memory.frontmatter import decode_memory_bytes, normalize_text, parse_memory_file
from mini_letta.memory.secrets import iter_secrets
from mini_letta.palace.line_checks import Line, check_lines, content_lines
from mini_letta.reflection.gate.check import GateLimits
from mini_letta.structs import Struct, field

Severity = Literal["severe", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("severe", "warning", "info")

_KINDS: dict[str, tuple[Severity, str]] = {
    "secret": ("severe", "remove it from memory and rotate the credential"),
    "frontmatter": ("severe", "fix the frontmatter with `mini-letta memory edit PATH`"),
    "not_regular": ("severe", "replace it with a plain file, or remove it"),
    "too_large": ("severe", "split it into smaller files (detail outside system/), or remove it"),
    "over_budget": ("severe", "consolidate it: merge repeats, move detail to a file outside "
                              "system/ (`memory doctor --fix` asks reflection to)"),
    "duplicate": ("warning", "keep one of the two lines"),
    "near_duplicate": ("warning", "merge the two lines into one"),
    "contradiction": ("warning", "keep the value that is true now; remove the other"),
    "unreferenced": ("warning", "give it a .md name and a description, or link it from its "
                                "skill's SKILL.md, or remove it"),
    "placeholder": ("info", "replace it with what is known, or remove it"),
    "no_provenance": ("info", "check the line (`mini-letta memory why PATH:LINE`); commit "
                              "it, or keep it only if it is right"),
}  # fmt: skip


class Finding(Struct, frozen=True):
    severity: Severity
    kind: str
    path: str
    line: int | None
    message: str
    advice: str
    related: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "kind": self.kind,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "advice": self.advice,
            "related": self.related,
        }


class Provenance(Struct, frozen=True):
    """What the doctor knows of committed lines: per path, the stripped text of each HEAD line
    that has an origin to show (True) or was written by a reflection run citing nothing
    (False, with the run id)."""

    lines: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)


def diagnose(memory_dir: Path, limits: GateLimits, provenance: Provenance | None) -> list[Finding]:
    """Every finding, ordered by severity, then path and line. `provenance` None skips the
    origin check (no history to compare with)."""
    found: list[Finding] = []
    texts: dict[str, str] = {}
    paths: list[str] = []
    for rel, mode in _walk(memory_dir):
        if not stat.S_ISREG(mode):
            found.append(_finding("not_regular", rel, None, f"is a {_kind_of(mode)}, not a file"))
            continue
        paths.append(rel)
        if not rel.endswith(".md"):
            continue  # listed for the unreferenced check, never read
        try:  # bounded and never through a link: what replaced the file since the walk
            data = read_memory_bytes(memory_dir, rel)
        except FrontmatterError as exc:
            kind = "too_large" if "limit" in str(exc) else "not_regular"
            found.append(_finding(kind, rel, None, _detail(exc, rel)))
            continue
        except OSError as exc:  # gone since the walk
            found.append(_finding("not_regular", rel, None, f"cannot be read ({exc.strerror})"))
            continue
        try:
            texts[rel] = normalize_text(decode_memory_bytes(data, rel))
        except FrontmatterError as exc:
            found.append(_finding("frontmatter", rel, 1, _detail(exc, rel)))
    lines: list[Line] = []
    found += _secrets(texts)
    for rel, text in texts.items():
        try:
            body = parse_memory_file(text, rel).body
        except FrontmatterError as exc:
            found.append(_finding("frontmatter", rel, 1, _detail(exc, rel)))
            continue
        first = text.count("\n") - body.count("\n") + 1
        file_lines = content_lines(rel, body, first)
        lines += file_lines
        if provenance is not None:
            found += _origins(rel, file_lines, provenance)
    found += _unreferenced(paths, texts)
    found += _budgets(texts, limits)
    for item in check_lines(lines):
        found.append(_finding(item.kind, item.path, item.line, item.message, item.related))
    order = {severity: n for n, severity in enumerate(SEVERITIES)}
    return sorted(found, key=lambda f: (order[f.severity], f.path, f.line or 0, f.kind))


def count_findings(findings: list[Finding]) -> dict[str, int]:
    counts: dict[str, int] = {severity: 0 for severity in SEVERITIES}
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def fix_instruction(findings: list[Finding], limit: int = 40) -> str:
    """The task of a `memory doctor --fix` reflection run: the findings, one per line."""
    lines = [
        "Memory doctor found these problems in memory. Fix the ones you can with memory edits "
        "(consolidate, remove repeats and placeholders, settle contradictions by what the "
        "conversation says); do not invent facts. Leave a secret's line out of any new text."
    ]
    for finding in findings[:limit]:
        where = f"{finding.path}:{finding.line}" if finding.line else finding.path
        lines.append(f"- [{finding.severity}] {where}: {finding.message} ({finding.advice})")
    if len(findings) > limit:
        lines.append(f"- ... and {len(findings) - limit} more")
    return "\n".join(lines)


def _finding(
    kind: str, path: str, line: int | None, message: str, related: str | None = None
) -> Finding:
    severity, advice = _KINDS[kind]
    return Finding(severity, kind, path, line, message, advice, related)


def _walk(root: Path) -> list[tuple[str, int]]:
    """(relative path, lstat mode) of everything but .git, symlinks never followed."""
    found: list[tuple[str, int]] = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        keep = []
        for name in sorted(dirs):
            if base == root and name == ".git":
                continue
            mode = os.lstat(base / name).st_mode
            if stat.S_ISDIR(mode):
                keep.append(name)
            else:  # a symlink to a folder
                found.append(((base / name).relative_to(root).as_posix(), mode))
        dirs[:] = keep
        for name in sorted(files):
            mode = os.lstat(base / name).st_mode
            found.append(((base / name).relative_to(root).as_posix(), mode))
    return found


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "symbolic link"), (stat.S_ISFIFO, "named pipe"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"),
                       (stat.S_ISBLK, "device")):  # fmt: skip
        if test(mode):
            return name
    return "special file"


def _detail(exc: FrontmatterError, path: str) -> str:
    return str(exc).removeprefix(f"{path}: ")


def _secrets(texts: Mapping[str, str]) -> list[Finding]:
    """The scanner over every file in one call (its cost is mostly per call); each match is
    mapped back to its file and line. Files are joined by a NUL, which no pattern spans."""
    paths = list(texts)
    starts: list[int] = []
    position = 0
    for rel in paths:
        starts.append(position)
        position += len(texts[rel]) + len(_JOIN)
    found = []
    for match in iter_secrets(_JOIN.join(texts[rel] for rel in paths)):
        index = bisect.bisect_right(starts, match.start) - 1
        rel = paths[index]
        line = texts[rel].count("\n", 0, match.start - starts[index]) + 1
        found.append(
            _finding("secret", rel, line, f"holds what looks like a secret ({match.kind})")
        )
    return found


_JOIN = "\n\x00\n"


def _origins(rel: str, lines: list[Line], provenance: Provenance) -> list[Finding]:
    committed = provenance.lines.get(rel)
    found = []
    for line in lines:
        text = line.text.strip()
        if committed is None or text not in committed:
            found.append(_finding("no_provenance", rel, line.number, "is not committed yet"))
            continue
        run = committed[text]
        if run is not None:
            found.append(
                _finding(
                    "no_provenance",
                    rel,
                    line.number,
                    f"reflection run {run} wrote it without citing a message",
                )  # fmt: skip
            )
    return found


def _unreferenced(paths: list[str], texts: Mapping[str, str]) -> list[Finding]:
    """What the compiled prompt never names: a file that is not .md; under skills/, anything
    but `skills/<name>/SKILL.md` that its skill's SKILL.md does not mention."""
    found = []
    for rel in paths:
        parts = rel.split("/")
        if parts[0] == "skills" and len(parts) >= 3:
            skill = texts.get(f"skills/{parts[1]}/SKILL.md", "")
            inner = "/".join(parts[2:])
            if inner == "SKILL.md" or inner in skill:
                continue
            why = f"is not mentioned by skills/{parts[1]}/SKILL.md"
        elif parts[0] == "skills":
            why = "is not in a skill folder (skills/<name>/SKILL.md)"
        elif not rel.endswith(".md"):
            why = "is not a .md file, so the prompt never lists it"
        else:
            continue
        found.append(_finding("unreferenced", rel, None, why))
    return found


def _budgets(texts: Mapping[str, str], limits: GateLimits) -> list[Finding]:
    system = {p: estimate_tokens(t) for p, t in texts.items() if p.startswith("system/")}
    found = []
    for rel, tokens in sorted(system.items()):
        if tokens > limits.file_tokens:
            found.append(
                _finding("over_budget", rel, None,
                         f"is ~{tokens} tokens, over the per-file budget of {limits.file_tokens}")
            )  # fmt: skip
    total = sum(system.values())
    if total > limits.system_tokens:
        found.append(
            _finding("over_budget", "system/", None,
                     f"holds ~{total} tokens, over its budget of {limits.system_tokens}")
        )  # fmt: skip
    return found
