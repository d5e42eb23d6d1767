"""Asking the user before a tool runs: the approver the interactive session passes to turns.

The question goes to stderr (so it shows in a pipe too), the answer is read with the session's
line reader. Answers: y (this call), a (this tool for the rest of the session), anything else
refuses. End of input refuses too, so a closed terminal never approves by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from mini_letta.conversations.messages import ToolCall
from mini_letta.tools.base import Approver


def build_terminal_approver(read_line: Callable[[str], str], err: TextIO) -> Approver:
    always: set[str] = set()

    def approve(call: ToolCall, summary: str) -> bool:
        if call.name in always:
            return True
        err.write(f"  ? allow {summary}\n    [y]es / [a]lways {call.name} / [N]o\n")
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
