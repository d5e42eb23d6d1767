"""THE memory-file format: YAML frontmatter between `---` lines, then a markdown body.

One parser and one renderer serve the prompt compiler, the memory tool and `memory validate`, so
a file is valid everywhere or nowhere. A UTF-8 BOM and CRLF/CR line ends are accepted and
normalised away; `description` must be one non-empty line; `read_only` must be a boolean; every
other key is kept in `extra` and written back. yaml is imported only when a block is not the
plain `key: value` shape the fast path reads exactly as YAML would (the usual case).
"""

from __future__ import annotations

import re
from typing import Any

from mini_letta.errors import FrontmatterError
from mini_letta.structs import Struct, field

FENCE = "---"
_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# YAML 1.1 booleans as PyYAML resolves them; other specials fall back to yaml.
_BOOLEANS = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
_UNSAFE_FIRST = set("-?:,[]{}#&*!|>'\"%@`0123456789+.~<=\\")
_SPECIAL_WORDS = {"null", "nan", "inf"}


class MemoryFile(Struct, frozen=True):
    description: str
    body: str
    read_only: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def decode_memory_bytes(data: bytes, path: str) -> str:
    """Memory files are UTF-8 text; anything else is a FrontmatterError naming the path."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FrontmatterError(path, "is UTF-16 encoded; save it as UTF-8")
    if b"\x00" in data:
        raise FrontmatterError(path, "contains NUL bytes; memory files must be UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrontmatterError(path, f"is not valid UTF-8 (byte {exc.start})") from exc


def normalize_text(text: str) -> str:
    """Drop a BOM and turn CRLF/CR into LF: the one text form every check sees."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_memory_file(text: str, path: str) -> MemoryFile:
    """Parse and validate a memory file; raises FrontmatterError(path, what is wrong)."""
    text = normalize_text(text)
    block, body = _split(text, path)
    data = _load_block(block, path)
    description = data.pop("description", None)
    if description is None:
        raise FrontmatterError(
            path, "frontmatter is missing 'description' (one line saying what the file holds)"
        )
    if not isinstance(description, str):
        raise FrontmatterError(path, "'description' must be text")
    description = description.strip()
    if not description:
        raise FrontmatterError(path, "'description' must not be empty")
    if "\n" in description:
        raise FrontmatterError(path, "'description' must be a single line")
    read_only = data.pop("read_only", False)
    if read_only is None:
        read_only = False
    if not isinstance(read_only, bool):
        raise FrontmatterError(path, "'read_only' must be true or false")
    return MemoryFile(description, body, read_only, data)


def render_memory_file(mf: MemoryFile) -> str:
    """The file text (LF line ends); `parse_memory_file(render_memory_file(mf))` gives mf back."""
    lines = [FENCE, _render_pair("description", " ".join(mf.description.split()))]
    if mf.read_only:
        lines.append("read_only: true")
    for key, value in mf.extra.items():
        if key in ("description", "read_only"):
            continue
        lines.append(_render_pair(key, value))
    lines.append(FENCE)
    return "\n".join(lines) + "\n" + mf.body


def _split(text: str, path: str) -> tuple[str, str]:
    first, sep, rest = text.partition("\n")
    if first.rstrip(" \t") != FENCE:
        raise FrontmatterError(
            path,
            "missing frontmatter: the file must start with a '---' line, then "
            "'description: ...', then '---'",
        )
    rest = "\n" + rest
    match = re.search(r"\n---[ \t]*(?:\n|$)", rest) if sep else None
    if match is None:
        raise FrontmatterError(path, "frontmatter opened with '---' but never closed")
    return rest[1 : match.start()], rest[match.end() :]


def _load_block(block: str, path: str) -> dict[str, Any]:
    fast = _parse_simple_block(block)
    if fast is not None:
        return fast
    import yaml

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "could not be parsed"
        raise FrontmatterError(path, f"invalid YAML{where}: {problem}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(path, "frontmatter must be 'key: value' lines (a YAML mapping)")
    return {str(key): value for key, value in data.items()}


def _parse_simple_block(block: str) -> dict[str, Any] | None:
    """`key: value` lines whose values YAML reads as the same plain string (or a boolean).

    Returns None for anything else (comments, quotes, lists, numbers, nulls, odd characters),
    which then goes to yaml itself; so the result always equals `yaml.safe_load(block)`.
    """
    data: dict[str, Any] = {}
    if not block:
        return data
    for line in block.split("\n"):
        key, sep, value = line.partition(": ")
        if not sep or not is_plain_key(key):
            return None
        value = value.strip(" ")
        if value in _BOOLEANS:
            data[key] = _BOOLEANS[value]
        elif is_plain_scalar(value):
            data[key] = value
        else:
            return None
    return data


def is_plain_key(key: str) -> bool:
    return bool(_KEY_RE.fullmatch(key)) and key not in _BOOLEANS and key.lower() != "null"


def is_plain_scalar(value: str) -> bool:
    """True when `value` written bare after `key: ` reads back as exactly this string."""
    if not value or value != value.strip(" ") or not value.isprintable():
        return False
    if value[0] in _UNSAFE_FIRST or value in _BOOLEANS or value.lower() in _SPECIAL_WORDS:
        return False
    if value.endswith(":") or ": " in value or " #" in value or "\t" in value:
        return False
    return "\\" not in value and "\ufeff" not in value


def _render_pair(key: str, value: Any) -> str:
    if is_plain_key(key):
        if isinstance(value, bool):
            return f"{key}: {'true' if value else 'false'}"
        if isinstance(value, str) and is_plain_scalar(value):
            return f"{key}: {value}"
    import yaml

    pair = {key: value}
    options: dict[str, Any] = {"sort_keys": False, "default_flow_style": False, "width": 2**30}
    dumped: str = yaml.safe_dump(pair, allow_unicode=True, **options)
    if yaml.safe_load(normalize_text(dumped)) != pair:  # e.g. a raw U+0085 reads as a line end
        dumped = yaml.safe_dump(pair, allow_unicode=False, **options)
    return dumped.rstrip("\n")
