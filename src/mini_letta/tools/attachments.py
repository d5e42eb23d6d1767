"""`@path` in a prompt: the file's contents go with the message, as the Read tool would see it.

A reference is `@` at the start of a word (after a space, a line start or an opening bracket),
outside backticks (inline code and fenced blocks are left alone), followed by a path, or by a
quoted one (`@"my notes.txt"`); trailing punctuation is not part of it. So `me@example.com`,
`` `@decorator` `` and `@alice` stay text. The word is a reference when it names a file, or when
it looks like a path (it holds a `/` or a `.`): then a missing file is an error and nothing is
sent. Files are confined as the file tools are (tools/paths.py), capped in size, refused when
binary, and credentials are redacted before they join the message (which is stored and read by
reflection). The scan is one regular expression pass: linear in the prompt's length.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mini_letta.errors import InvalidValueError
from mini_letta.structs import Struct
from mini_letta.tools.base import ToolContext, ToolInputError
from mini_letta.tools.files import SNIFF_BYTES
from mini_letta.tools.paths import display_path, resolve_tool_path

MAX_FILE_BYTES = 100_000  # one attachment
MAX_TOTAL_BYTES = 250_000  # all of a prompt's attachments together

# Code (fenced, then inline) is matched first and skipped, so an `@` inside it is never a
# reference; otherwise an `@` that starts a word, then a quoted or a bare path.
_SCAN = re.compile(
    r"```.*?(?:```|\Z)|`[^`\n]*`|(?<![^\s(\[{])@(?:\"([^\"\n]+)\"|([^\s`]+))", re.DOTALL
)
_TRAILING = ".,;:!?)]}'\""


class AttachmentError(InvalidValueError):
    """An `@path` that cannot be attached: one line naming it, and nothing is sent."""


class Attachment(Struct, frozen=True):
    shown: str  # the path as the message names it (relative to the working directory)
    text: str


def find_references(prompt: str) -> list[str]:
    """The paths a prompt names with `@`, in order, each once (whether the file exists is
    decided later)."""
    found: list[str] = []
    for match in _SCAN.finditer(prompt):
        quoted, bare = match.group(1), match.group(2)
        raw = quoted if quoted is not None else (bare or "").rstrip(_TRAILING)
        if raw and raw not in found:
            found.append(raw)
    return found


def attach_files(prompt: str, ctx: ToolContext) -> str:
    """`prompt` with the contents of each file it names with `@` appended; the prompt as it
    is when it names none. AttachmentError for a missing, refused, binary or too large file."""
    attached: list[Attachment] = []
    total = 0
    for raw in find_references(prompt):
        attachment = _attachment(raw, ctx)
        if attachment is None:
            continue
        total += len(attachment.text.encode("utf-8"))
        if total > MAX_TOTAL_BYTES:
            raise AttachmentError(
                f"@{_shown(raw)}: the attached files come to more than "
                f"{MAX_TOTAL_BYTES // 1000} KB; attach fewer, or ask the agent to read them"
            )
        attached.append(attachment)
    if not attached:
        return prompt
    blocks = [f'<file path="{a.shown}">\n{a.text.rstrip()}\n</file>' for a in attached]
    return "\n\n".join([prompt, *blocks])


def _attachment(raw: str, ctx: ToolContext) -> Attachment | None:
    """The file `raw` names; None when the word is no reference (no such file, no path)."""
    try:
        return _read_attachment(raw, ctx)
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop, no permission
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise AttachmentError(f"@{_shown(raw)}: cannot be read ({reason})") from None


def _shown(raw: str) -> str:
    """A path as an error line names it: printable, and not longer than a line."""
    text = raw if raw.isprintable() else repr(raw)[1:-1]
    return text if len(text) <= 80 else text[:79] + "…"


def _read_attachment(raw: str, ctx: ToolContext) -> Attachment | None:
    candidate = ctx.cwd / Path(raw).expanduser()
    if not os.path.lexists(candidate) and "/" not in raw and "." not in raw:
        return None  # `@alice`: a word, not a path
    try:
        path = resolve_tool_path(raw, ctx)
    except ToolInputError as exc:
        raise AttachmentError(f"@{_shown(raw)}: {exc}") from None
    if not path.exists() and os.path.lexists(path):  # 3.13 resolves a loop without raising
        raise AttachmentError(f"@{_shown(raw)}: cannot be read (a link that leads nowhere)")
    if not path.exists():
        raise AttachmentError(
            f"@{_shown(raw)}: no such file (in backticks, `@{_shown(raw)}` stays text); "
            "nothing was sent"
        )
    if not path.is_file():
        raise AttachmentError(f"@{_shown(raw)}: not a regular file (a folder, FIFO or device)")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise AttachmentError(
            f"@{_shown(raw)}: {size // 1000} KB, over the {MAX_FILE_BYTES // 1000} KB an "
            "attachment may be; ask the agent to read the part you mean"
        )
    with path.open("rb") as handle:  # at most the cap, should the file grow meanwhile
        data = handle.read(MAX_FILE_BYTES)
    if b"\x00" in data[:SNIFF_BYTES]:
        raise AttachmentError(
            f"@{_shown(raw)}: a binary file (it contains NUL bytes); only text attaches"
        )
    from mini_letta.memory.secrets import redact_secrets

    text = redact_secrets(data.decode("utf-8", errors="replace"))
    return Attachment(display_path(path, ctx), text)
