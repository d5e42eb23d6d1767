"""The rule for edits two machines made to the same lines: keep both, visibly.

git's merge leaves conflict markers in a file. Memory must stay readable markdown with valid
frontmatter, and nothing may be dropped, so each conflicted hunk keeps the merging machine's
lines in place and moves the other machine's lines into a `## Needs review` block at the end of
the file. The block is read on both machines (the other one receives it by the next sync), so it
names the two versions by their commits, never as "this" or "the other" machine. It stays until
a person (or the agent) resolves it; `memory status` and `status` list files that hold one on
either machine. A file the rule cannot turn into valid memory keeps the merging machine's text,
and the other version is kept beside it in a file of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from mini_letta.errors import FrontmatterError
from mini_letta.memory.frontmatter import MemoryFile, parse_memory_file, render_memory_file
from mini_letta.structs import Struct

REVIEW_HEADING = "## Needs review"
_OURS, _BASE, _SEP, _THEIRS = "<" * 7, "|" * 7, "=" * 7, ">" * 7


class Resolution(Struct, frozen=True):
    """What becomes of one conflicted file: its new text, and any file kept beside it."""

    text: str
    side_path: str | None = None
    side_text: str | None = None


def split_conflicts(text: str, *, union: bool = True) -> tuple[list[str], list[list[str]]]:
    """(the lines to keep, the other machine's hunks) of a file with diff3-style markers.

    Lines outside a conflict belong to both. Where both sides only added lines at one place of
    the body (the hunk's base is empty) both additions are kept, this machine's first (unless
    `union` is off): nothing there contradicts anything. Otherwise, a line both sides replaced
    (the new-memory starter line included: two different replacements of it are two answers
    to one question), this machine's lines stay and the other machine's are returned as a
    hunk for review. Unbalanced markers are kept as text.
    """
    kept: list[str] = []
    hunks: list[list[str]] = []
    state = "both"
    ours: list[str] = []
    base: list[str] = []
    theirs: list[str] = []
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if state == "both" and bare.startswith(_OURS + " "):
            state, ours, base, theirs = "ours", [], [], []
        elif state == "ours" and bare.startswith(_BASE):
            state = "base"
        elif state in ("ours", "base") and bare == _SEP:
            state = "theirs"
        elif state == "theirs" and bare.startswith(_THEIRS + " "):
            state = "both"
            kept += ours
            if _has_content(base) or not ours or not union or _in_frontmatter(kept):
                hunks.append(theirs)
            else:
                kept += theirs
        elif state == "ours":
            ours.append(line)
        elif state == "base":
            base.append(line)
        elif state == "theirs":
            theirs.append(line)
        else:
            kept.append(line)
    if state != "both":  # an unterminated hunk: not markers after all
        return text.splitlines(keepends=True), []
    return kept, hunks


def review_block(hunks: list[list[str]], *, local: str, remote: str, when: str) -> str:
    """The `## Needs review` block that holds the remote's version of each hunk, worded to
    read right on both machines: the versions are named by their commits."""
    kept = f"commit {local[:7]}" if local else "the merging machine"
    parts = [
        f"\n{REVIEW_HEADING}\n\n",
        f"Memory sync on {when} found two different edits to the same lines, made on two "
        f"machines. The text above is the version of {kept}; below is the version of commit "
        f"{remote[:7]}. Keep one (or combine them), then delete this section.\n\n",
    ]
    for index, hunk in enumerate(hunks):
        if index:
            parts.append("\n")
        body = "".join(hunk) or "(the other machine removed these lines)\n"
        parts.append(body if body.endswith("\n") else body + "\n")
    return "".join(parts)


def resolve_conflict(
    path: str, merged: str, *, remote: str, when: str, local: str = ""
) -> Resolution:
    """Turn a conflicted file into valid memory that keeps both versions (see module doc)."""
    kept, hunks = split_conflicts(merged)
    local_text = "".join(kept)
    if not hunks and _valid(path, local_text):
        return Resolution(local_text)
    if not hunks:  # the additions do not combine into valid memory: review them instead
        kept, hunks = split_conflicts(merged, union=False)
        local_text = "".join(kept)
    block = review_block(hunks, local=local, remote=remote, when=when)
    if not path.endswith(".md"):
        return Resolution(local_text, *_side_file(path, remote, block))
    try:
        parsed = parse_memory_file(local_text, path)
    except FrontmatterError:
        return Resolution(local_text, *_side_file(path, remote, block))
    body = parsed.body if parsed.body.endswith("\n") or not parsed.body else parsed.body + "\n"
    updated = MemoryFile(parsed.description, body + block, parsed.read_only, dict(parsed.extra))
    return Resolution(render_memory_file(updated))


def brought_for_review(texts: Mapping[str, tuple[str | None, str | None]]) -> tuple[str, ...]:
    """Of the files a move changes (path -> its text before and after, None where absent),
    those it brings with a review block or as a kept `.remote-` copy: a conflict another
    machine merged is this machine's to review too. A block counts when a heading line came or
    went, so a file that only kept an old block while other lines changed is not listed again."""
    found: list[str] = []
    for path, (before, after) in texts.items():
        if after is None:
            continue
        if ".remote-" in path or (
            REVIEW_HEADING in after and _headings(before) != _headings(after)
        ):
            found.append(path)
    return tuple(found)


def _headings(text: str | None) -> list[str]:
    return [line for line in (text or "").splitlines() if line.startswith(REVIEW_HEADING)]


def _side_file(path: str, remote: str, block: str) -> tuple[str, str]:
    stem, dot, suffix = path.rpartition(".")
    base = stem if dot and "/" not in suffix else path
    side = f"{base}.remote-{remote[:7]}.md"
    description = f"Commit {remote[:7]}'s version of {path}, kept by memory sync for review."
    return side, render_memory_file(MemoryFile(description, block.lstrip("\n")))


def _valid(path: str, text: str) -> bool:
    if not path.endswith(".md"):
        return True
    try:
        parse_memory_file(text, path)
    except FrontmatterError:
        return False
    return True


def _has_content(base: list[str]) -> bool:
    return any(line.strip() for line in base)


def _in_frontmatter(lines: list[str]) -> bool:
    """Whether the text so far has opened frontmatter and not closed it (a union there could
    repeat a key)."""
    fences = [line for line in lines if line.rstrip("\r\n") == "---"]
    return bool(lines) and lines[0].rstrip("\r\n") == "---" and len(fences) == 1
