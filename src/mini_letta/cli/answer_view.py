"""The interactive session's answer on a terminal: streamed as plain text, then shown as markdown.

Tokens are written as they arrive, so the user reads the answer while it is written. When the
answer is complete and still fits on the screen, the plain text is erased and the same answer is
printed again as markdown with `rich` (code highlighted, lists, tables), at the terminal's width,
without colour when NO_COLOR is set. An answer taller than the screen stays plain: the rows that
scrolled away cannot be erased. Without a terminal nothing here runs (plain text only).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import TextIO

from mini_letta.structs import Struct, field

ERASE_TO_END = "\x1b[J"


def wants_color(environ: Mapping[str, str]) -> bool:
    """No colour when NO_COLOR is set to anything non-empty (no-color.org) or TERM is dumb."""
    return not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


def terminal_size(out: TextIO) -> tuple[int, int]:
    """(columns, rows) of the terminal behind `out`; 80x24 when it has none."""
    try:
        size = os.get_terminal_size(out.fileno())
    except (OSError, ValueError, AttributeError):
        return 80, 24
    return max(20, size.columns), max(5, size.lines)


def rows_taken(text: str, width: int) -> int:
    """Screen rows `text` occupies when printed from column 0 on a `width`-column terminal."""
    from rich.cells import cell_len

    return sum(max(1, -(-cell_len(line) // width)) for line in text.split("\n"))


def render_markdown(text: str, out: TextIO, *, width: int, color: bool = True) -> None:
    """Print `text` as markdown on `out` (ANSI styles only when `color`)."""
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(
        file=out,
        width=width,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        soft_wrap=False,
    )
    console.print(Markdown(text, code_theme="ansi_dark" if color else "bw"))
    out.flush()


def _import_rich() -> None:
    import rich.console
    import rich.markdown  # noqa: F401


class AnswerView(Struct):
    """One terminal's answer area: what of the current answer has been streamed so far."""

    out: TextIO
    color: bool
    size: tuple[int, int] | None = None  # fixed (columns, rows), else asked of the terminal
    _segment: list[str] = field(default_factory=list)

    @classmethod
    def for_terminal(cls, out: TextIO, environ: Mapping[str, str]) -> AnswerView:
        """A view for a session's terminal; rich is imported meanwhile on a side thread, so
        the first answer does not wait for it (bench/answer_render.py: a few hundred ms)."""
        threading.Thread(target=_import_rich, daemon=True).start()
        return cls(out, wants_color(environ))

    def delta(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
        self._segment.append(text)

    def break_segment(self) -> None:
        """The model stopped writing to call tools: what it wrote stays as it is."""
        if self._segment:
            self.out.write("\n")
            self.out.flush()
        self._segment.clear()

    def finish(self) -> None:
        """The answer is complete: show it again as markdown when it still fits on the screen."""
        text = "".join(self._segment)
        self._segment.clear()
        if not text.strip():
            if text:
                self.out.write("\n")
            return
        width, height = self.size or terminal_size(self.out)
        rows = rows_taken(text, width)
        if rows >= height:
            self.out.write("\n")
            self.out.flush()
            return
        up = f"\x1b[{rows - 1}A" if rows > 1 else ""
        self.out.write(f"{up}\r{ERASE_TO_END}")
        render_markdown(text, self.out, width=width, color=self.color)
