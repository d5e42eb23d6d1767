"""What a Write or Edit would change, as a unified diff, for the approval prompt.

The user approves the change itself, not a path and a character count. The diff is computed
from the file as it is now, the way the tool would compute the new text; a call the tool will
refuse anyway (no match, unreadable file, malformed arguments) gets no diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import MiniLettaError
from mini_letta.tools.base import parse_arguments

MAX_DIFF_LINES = 40


def preview_change(call: ToolCall, cwd: Path, max_lines: int = MAX_DIFF_LINES) -> list[str]:
    """The diff lines (capped), or [] when the call is no Write/Edit or would not apply."""
    if call.name not in ("Write", "Edit"):
        return []
    try:
        args = parse_arguments(call.arguments)
    except MiniLettaError:
        return []
    raw = args.get("path")
    if not isinstance(raw, str) or not raw:
        return []
    path = Path(raw) if Path(raw).is_absolute() else cwd / raw
    try:
        before = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return []
    after = _after(call.name, args, before)
    if after is None:
        return []
    diff = list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
            fromfile=raw if path.is_file() else "/dev/null",
            tofile=raw,
            lineterm="",
        )
    )
    if len(diff) > max_lines:
        diff = diff[:max_lines] + [f"… {len(diff) - max_lines} more lines"]
    return diff


def _after(name: str, args: dict[str, object], before: str) -> str | None:
    if name == "Write":
        content = args.get("content")
        return content if isinstance(content, str) else None
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or not old or old not in before:
        return None
    return (
        before.replace(old, new) if args.get("replace_all") is True else before.replace(old, new, 1)
    )
