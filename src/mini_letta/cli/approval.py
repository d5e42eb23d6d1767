"""Asking the user before a tool runs: the approver the interactive session passes to turns.

The question shows what will run or change: the command, or the unified diff of a Write or
Edit (cli/change_preview.py). It goes to stderr (so it shows in a pipe too), the answer is read
with the session's line reader. Answers: y (once), a (this tool for the rest of the session),
anything else denies. End of input denies too, so a closed terminal never approves by
accident; Ctrl-C cancels the whole turn.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from mini_letta.cli.change_preview import preview_change
from mini_letta.cli.fit import wrap_lines
from mini_letta.conversations.messages import ToolCall
from mini_letta.tools.base import Approver


def build_terminal_approver(
    read_line: Callable[[str], str],
    err: TextIO,
    cwd: Path,
    width: Callable[[], int | None] = lambda: None,
) -> Approver:
    """The approver; every line of the question is wrapped to `width()`, nothing cut (the
    user approves what they read)."""
    always: set[str] = set()

    def approve(call: ToolCall, summary: str) -> bool:
        if call.name in always:
            return True
        lines = [
            f"  ? allow {summary}",
            *(f"    {line}" for line in preview_change(call, cwd)),
            f"    [y]es once / [a]lways {call.name} this session / [N]o, deny",
        ]
        err.write("".join(f"{row}\n" for row in wrap_lines(lines, width(), 5)))
        err.flush()
        try:
            answer = read_line("  › ")
        except EOFError:
            return False
        choice = answer.strip().lower()
        if choice in ("a", "always"):
            always.add(call.name)
            return True
        return choice in ("y", "yes")

    return approve
