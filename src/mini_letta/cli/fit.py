"""Fitting lines of output into a terminal's columns: shorten with an ellipsis, or wrap.

Widths are terminal columns, not characters: a wide (CJK) character takes two and a combining
mark none, so a cut never falls inside a character or splits one from its marks. `None` as a
width means there is no terminal to fit (a pipe): lines are left as they are. Which of the two
a line gets is its caller's choice: a summary may lose its tail, what the user must read in
full (a command to approve, a failure's reason) is wrapped.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

MIN_COLUMNS = 20  # narrower than this, wrapping would only make things worse


def columns(char: str) -> int:
    """Terminal columns one character takes."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_columns(text: str) -> int:
    if text.isascii():  # no wide characters and no marks: the common case, fast
        return len(text)
    return sum(map(columns, text))


def shorten(text: str, width: int) -> str:
    """`text` on one line in at most `width` terminal columns, ending in '…' when cut.

    The cut falls at a word boundary when there is one in the last third, and never inside a
    character, after half of a wide (CJK) one, or between a character and its combining marks.
    """
    return _cut(" ".join(text.split()), width)


def _cut(text: str, width: int) -> str:
    """`text` (one line) cut to `width` columns with an ellipsis; its spacing kept."""
    if text_columns(text) <= width:
        return text
    end = _fits(text, width - 1)  # one column for the ellipsis
    cut = text[:end]
    space = cut.rfind(" ")
    if space > len(cut) * 2 // 3:
        cut = cut[:space]
    return cut.rstrip() + "…"


def _fits(text: str, width: int) -> int:
    """How many leading characters of `text` fit in `width` columns (marks stay attached)."""
    used = end = 0
    for index, char in enumerate(text):
        used += columns(char)
        if used > width:
            break
        end = index + 1
    while 0 < end < len(text) and unicodedata.combining(text[end]):
        end -= 1
    return end


def fit_line(line: str, width: int | None) -> str:
    """`line` (one line) cut to `width` with an ellipsis, its indent and spacing kept; as it
    is without a width."""
    if width is None or text_columns(line) <= width:
        return line
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    return indent + _cut(body, max(1, width - len(indent)))


def wrap_line(line: str, width: int | None, hang: int | None = None) -> list[str]:
    """`line` as rows of at most `width` columns, nothing lost: words move to the next row,
    indented by `hang` spaces (default: the line's own indent plus two); a word longer than a
    row starts where it is and is cut across rows. Without a width, or when it fits, the line
    is left as it is."""
    if width is None or text_columns(line) <= width:
        return [line]
    width = max(width, MIN_COLUMNS)
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    pad = " " * min(indent + 2 if hang is None else hang, width * 2 // 3)
    rows: list[str] = []
    row, used, filled = " " * indent, indent, False  # used: the row's columns
    for word in body.split(" "):
        size = text_columns(word)
        if used + filled + size <= width:
            row, used = (f"{row} {word}", used + 1 + size) if filled else (row + word, used + size)
            filled = True
            continue
        if filled and len(pad) + size <= width:
            rows.append(row)
            row, used = pad + word, len(pad) + size
        else:  # an empty row, or a word too long for any row: start it here
            row = f"{row} {word}" if filled else row + word
            used = text_columns(row)
        filled = True
        while used > width:  # a word longer than a row
            end = _fits(row, width)
            rows.append(row[:end])
            row = pad + row[end:]
            used = text_columns(row)
    rows.append(row)
    return rows


def wrap_lines(lines: Iterable[str], width: int | None, hang: int | None = None) -> list[str]:
    """Every line wrapped (a line holding newlines is taken as the lines it holds)."""
    return [
        row for text in lines for line in text.split("\n") for row in wrap_line(line, width, hang)
    ]
