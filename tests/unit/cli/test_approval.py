"""The approval prompt: what will run or change, in full, wrapped to the window."""

from __future__ import annotations

import io
import json

from mini_letta.cli.approval import build_terminal_approver
from mini_letta.cli.fit import text_columns
from mini_letta.conversations.messages import ToolCall

COMMAND = "find . -name '*.py' " + " ".join(f"-not -path './build{i}/*'" for i in range(8))


def test_the_question_wraps_to_the_window_and_shows_the_whole_command(tmp_path):
    err = io.StringIO()
    approve = build_terminal_approver(lambda _prompt: "y", err, tmp_path, lambda: 40)
    call = ToolCall("c1", "Bash", json.dumps({"command": COMMAND}))
    assert approve(call, f"Bash: {COMMAND}")
    rows = err.getvalue().splitlines()
    assert all(text_columns(row) <= 40 for row in rows), rows
    assert "".join(COMMAND.split()) in "".join("".join(rows).split())
    assert "[y]es once" in err.getvalue() and "[N]o, deny" in "".join(rows)


def test_an_edits_diff_lines_wrap_under_their_sign(tmp_path):
    (tmp_path / "n.txt").write_text("short\n")
    err = io.StringIO()
    approve = build_terminal_approver(lambda _prompt: "n", err, tmp_path, lambda: 30)
    edit = {"path": "n.txt", "old_string": "short", "new_string": "long " * 12}
    assert not approve(ToolCall("c1", "Edit", json.dumps(edit)), "Edit n.txt")
    rows = err.getvalue().splitlines()
    added = rows.index(next(row for row in rows if row.startswith("    +long")))
    assert rows[added + 1].startswith("     long") and all(len(row) <= 30 for row in rows)
