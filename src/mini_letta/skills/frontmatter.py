"""SKILL.md's frontmatter as data: the framing, and a reader that needs yaml only for rare shapes.

Start-up reads every skill's frontmatter, and importing and running yaml for each costs more
than the rest of discovery, so `read_simple` reads the usual shapes itself: `key: value` lines
(plain or simply quoted text, or a flow list `[a, b]` of plain words), `key:` blocks of
two-space-indented `k: v` or `- item` lines, and `key: >-` (or `|-`) block scalars of
two-space-indented lines. It returns None for anything else, which yaml then
reads; where it returns, yaml agrees (tests/unit/skills/test_skill_format.py checks shapes).
"""

from __future__ import annotations

import re
from typing import Any

_FENCE = re.compile(r"\n---[ \t]*(?:\n|$)")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_UNSAFE_FIRST = set("-?:,[]{}#&*!|>'\"%@`0123456789+.~<=\\")
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "nan", "inf", "~"}
# Block scalars that strip their last newline: kept or not, yaml's other ones depend on whether
# the block ends with a line break, which the frontmatter's framing does not keep.
_BLOCK_SCALARS = {">-", "|-"}


def split_frontmatter(text: str) -> tuple[str, str] | str:
    """(frontmatter block, body) of a normalised text, or what is wrong with its framing."""
    end = text.find("\n")
    if (text if end < 0 else text[:end]).rstrip(" \t") != "---":
        return "SKILL.md must start with a '---' line (YAML frontmatter)"
    match = _FENCE.search(text, end) if end >= 0 else None  # slices, not copies, of the text
    if match is None:
        return "the frontmatter opened with '---' is never closed"
    return text[end + 1 : match.start()], text[match.end() :]


def normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" not in text:  # the usual case: one scan instead of two replacements
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_block(block: str) -> dict[str, Any] | str:
    """The frontmatter as a mapping (the fast reader, else yaml), or what yaml found wrong."""
    fast = read_simple(block)
    if fast is not None:
        return fast
    import yaml

    try:
        data = yaml.load(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "could not be parsed"
        return f"invalid YAML{where}: {problem}"
    if data is None:
        return {}
    if not isinstance(data, dict):
        return "the frontmatter must be 'key: value' lines"
    return {str(key): value for key, value in data.items()}


def read_simple(block: str) -> dict[str, Any] | None:
    """`key: value` lines (plain or simply quoted text, or a flow list `[a, b]` of plain words),
    and `key:` blocks of two-space-indented `k: v` lines or `- item` lines.

    None for anything else, which yaml then reads; where this returns, yaml agrees.
    """
    data: dict[str, Any] = {}
    open_key: str | None = None  # the `key:` whose indented lines follow
    folding: tuple[str, str] | None = None  # (key, indicator) of a `key: >-` block scalar
    lines = block.split("\n") if block else []
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line
    for line in lines:
        if folding is not None:
            if line.startswith("  "):
                if not _block_line(line):
                    return None
                data[folding[0]].append(line[2:])
                continue
            if not _end_block(data, *folding):
                return None
            folding = None
        if open_key is not None and line.startswith("  ") and not line.startswith("   "):
            if not _add_to_block(data, open_key, line[2:]):
                return None
            continue
        if open_key is not None and data[open_key] is None:
            return None  # `key:` with nothing under it is yaml's null
        open_key = None
        bare = line[:-1]
        if line.endswith(":") and _PLAIN_KEY.fullmatch(bare) and bare.lower() not in _RESERVED:
            if bare in data:
                return None
            open_key, data[bare] = bare, None
            continue
        head, sep, raw = line.partition(": ")
        if sep and raw.rstrip(" ") in _BLOCK_SCALARS and _PLAIN_KEY.fullmatch(head):
            if head in data or head.lower() in _RESERVED:
                return None
            folding, data[head] = (head, raw.rstrip(" ")), []
            continue
        key, value = _pair(line)
        if key is None or value is None or key in data:
            return None
        data[key] = value
    if folding is not None and not _end_block(data, *folding):
        return None
    if open_key is not None and data[open_key] is None:
        return None
    return data


def _block_line(line: str) -> bool:
    """A line of a block scalar this reader folds as yaml would: two spaces, then text that
    neither starts with a space (more indentation changes folding) nor holds a tab."""
    text = line[2:]
    return bool(text) and text == text.strip(" ") and "\t" not in text and text.isprintable()


def _end_block(data: dict[str, Any], key: str, indicator: str) -> bool:
    """Join the collected lines of `key: >-` with spaces (folded) or of `key: |-` with
    newlines (literal)."""
    lines = data[key]
    if not lines:
        return False  # an empty block scalar: yaml decides
    data[key] = (" " if indicator == ">-" else "\n").join(lines)
    return True


def _add_to_block(data: dict[str, Any], key: str, inner: str) -> bool:
    container = data[key]
    if inner.startswith("- "):
        item = _scalar(inner[2:].strip(" "))
        if container is None:
            container = data[key] = []
        if item is None or not isinstance(container, list):
            return False
        container.append(item)
        return True
    name, value = _pair(inner)
    if container is None:
        container = data[key] = {}
    if name is None or not isinstance(value, str) or not isinstance(container, dict):
        return False
    if name in container:
        return False
    container[name] = value
    return True


def _pair(line: str) -> tuple[str | None, str | list[str] | None]:
    key, sep, raw = line.partition(": ")
    if not sep or not _PLAIN_KEY.fullmatch(key) or key.lower() in _RESERVED:
        return None, None
    raw = raw.strip(" ")
    if raw.startswith("[") and raw.endswith("]"):
        return key, _flow_list(raw[1:-1])
    return key, _scalar(raw)


def _flow_list(inner: str) -> list[str] | None:
    """`a, b` of a flow list whose items are plain words (no indicators); None otherwise."""
    if not inner.strip(" "):
        return []
    items: list[str] = []
    for part in inner.split(","):
        item = part.strip(" ")
        if not item or any(c in item for c in "[]{}:#") or _scalar(item) is None:
            return None
        items.append(item)
    return items


def _scalar(raw: str) -> str | None:
    """The text a bare or simply quoted YAML scalar reads as; None when yaml must decide."""
    if not raw or not raw.isprintable() or "\t" in raw or "\ufeff" in raw:
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        inner = raw[1:-1]
        if raw[0] in inner or "\\" in inner:
            return None
        return inner
    if raw[0] in _UNSAFE_FIRST or raw.lower() in _RESERVED:
        return None
    if raw.endswith(":") or ": " in raw or " #" in raw or "\\" in raw:
        return None
    return raw
