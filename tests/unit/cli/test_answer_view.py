"""The interactive answer: streamed plain, then re-rendered as markdown when it fits the screen."""

from __future__ import annotations

import io

from mini_letta.cli.answer_view import AnswerView, render_markdown, rows_taken, wants_color
from mini_letta.cli.render import tool_line
from mini_letta.conversations.messages import ToolCall
from mini_letta.tools.base import ToolResult

ANSWER = "Here:\n\n- one\n- two\n\n```python\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"


def _stream(view: AnswerView, text: str) -> None:
    for i in range(0, len(text), 3):
        view.delta(text[i : i + 3])
    view.finish()


def test_a_finished_answer_is_erased_and_printed_again_as_markdown():
    out = io.StringIO()
    _stream(AnswerView(out, color=True, size=(80, 40)), ANSWER)
    shown = out.getvalue()
    assert shown.startswith(ANSWER)  # streamed as it came
    rows = rows_taken(ANSWER, 80)
    rendered = shown[len(ANSWER) :]
    assert rendered.startswith(f"\x1b[{rows - 1}A\r\x1b[J")
    assert "•" in rendered and "print" in rendered and "\x1b[" in rendered.split("\x1b[J", 1)[1]
    assert "| a | b |" not in rendered  # a table, not its source


def test_no_color_renders_structure_without_escape_codes():
    out = io.StringIO()
    render_markdown(ANSWER, out, width=60, color=False)
    text = out.getvalue()
    assert "\x1b" not in text
    assert "• one" in text
    assert all(len(line) <= 60 for line in text.splitlines())


def test_an_answer_taller_than_the_screen_stays_plain():
    out = io.StringIO()
    long = "\n".join(f"line {n}" for n in range(30))
    _stream(AnswerView(out, color=True, size=(60, 10)), long)
    assert out.getvalue() == long + "\n"


def test_text_before_a_tool_call_is_kept_and_only_the_last_segment_is_rerendered():
    out = io.StringIO()
    view = AnswerView(out, color=False, size=(60, 20))
    view.delta("Looking…")
    view.break_segment()
    view.delta("**done**")
    view.finish()
    shown = out.getvalue()
    assert shown.startswith("Looking…\n**done**\r\x1b[J")
    assert shown.rstrip().endswith("done") and "**" not in shown.split("\x1b[J")[1]


def test_rows_count_wrapped_and_wide_lines():
    assert rows_taken("a" * 61, 60) == 2
    assert rows_taken("好" * 30 + "\n", 60) == 2
    assert rows_taken("", 60) == 1


def test_no_color_and_dumb_terminals_get_no_colour():
    assert wants_color({"TERM": "xterm"})
    assert not wants_color({"NO_COLOR": "1"})
    assert not wants_color({"TERM": "dumb"})
    assert wants_color({"NO_COLOR": ""})


def test_a_tool_call_is_one_line_with_its_outcome():
    call = ToolCall(id="c1", name="Bash", arguments='{"command": "ls\\n -la"}')
    assert tool_line(call, ToolResult("a\nb\n")) == "  ⚙ Bash: ls -la ✓ 2 lines"
    assert tool_line(call, ToolResult("", False)) == "  ⚙ Bash: ls -la ✓ no output"
    failed = tool_line(call, ToolResult("Error: nope\nmore", True))
    assert failed == "  ⚙ Bash: ls -la ✗ Error: nope"
    broken = ToolCall(id="c2", name="Read", arguments="{not json")
    assert tool_line(broken, ToolResult("bad", True)).startswith("  ⚙ Read {not json ✗")
