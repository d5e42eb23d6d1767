"""Bounding what a tool returns: keep the head and the tail, say how much was cut.

Every byte of a tool result goes back into the context window, so results are capped; the head
and tail usually hold what matters (the command, the error at the end). The marker names the
number of characters left out so the model knows to narrow its request.
"""

from __future__ import annotations

import re

_MARKER_ROOM = 48  # the marker below is always shorter than this
# CSI (colours, cursor moves) and OSC (titles, hyperlinks, clipboard writes), the latter ended by
# BEL or ST. An OSC body stops at the next ESC, so no attempt scans past where the next one
# starts: linear time on output made of unfinished sequences.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def cap_text(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else head + marker + tail within the limit."""
    if limit <= 0 or len(text) <= limit:
        return text
    keep = max(limit - _MARKER_ROOM, 0)
    marker = f"\n… [{len(text) - keep:,} characters omitted] …\n"
    head = keep * 2 // 3
    tail = keep - head
    return text[:head] + marker + (text[-tail:] if tail else "")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)
