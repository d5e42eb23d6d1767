"""The renderer: stderr echoes cut cleanly, and a dead stdout never stops a turn's rendering."""

from __future__ import annotations

import io
import unicodedata

import pytest

from mini_letta.cli.render import Renderer, SessionInfo, shorten
from mini_letta.conversations.messages import ToolCall, Usage
from mini_letta.loop.events import ToolCallEvent, ToolResultEvent, TurnResult
from mini_letta.tools.base import ToolResult


def _columns(text: str) -> int:
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("short", 20, "short"),
        ('{"path": "notes/today.md", "content": "remember this"}', 40,
         '{"path": "notes/today.md", "content":…'),
        ("a" * 50, 10, "a" * 9 + "…"),
        ("记住我叫小林是技术负责人", 9, "记住我叫…"),  # wide: 2 columns each, never half of one
        ("cafe\u0301 au lait", 5, "cafe\u0301…"),  # the accent stays with its letter
        ("line one\nline two", 40, "line one line two"),
    ],
    ids=["fits", "word-boundary", "no-space", "wide", "combining", "one-line"],
)  # fmt: skip
def test_shorten(text, width, expected):
    assert shorten(text, width) == expected
    assert _columns(shorten(text, width)) <= width


def test_the_tool_call_echo_is_cut_at_a_word_with_an_ellipsis():
    err = io.StringIO()
    renderer = Renderer("text", io.StringIO(), err)
    renderer.start(SessionInfo("agent-1", "conv-1", "mock"))
    words = " ".join(f"word{i}" for i in range(60))
    call = ToolCall("c1", "Bash", '{"command": "echo ' + words + '"}')
    renderer.event(ToolCallEvent(call))
    renderer.event(ToolResultEvent(call, ToolResult("ok")))
    line = err.getvalue().rstrip("\n").removesuffix(" ✓ 1 line")
    assert line.endswith("…") and line.split()[-1].startswith("word")
    assert line.split()[-1].rstrip("…")[4:].isdigit()  # a whole word before the ellipsis


class _Full(io.StringIO):
    def flush(self) -> None:
        raise OSError(28, "No space left on device")


def test_a_full_stdout_is_noted_not_raised():
    renderer = Renderer("stream-json", _Full(), io.StringIO())
    renderer.start(SessionInfo("agent-1", "conv-1", "mock"))
    renderer.finish(TurnResult("end_turn", "hi", Usage(), 1, None), 5, {})
    assert renderer.lost_output == "no space left on the device"


def test_a_closed_stdout_is_noted_at_start():
    renderer = Renderer("text", None, None)
    renderer.start(SessionInfo("agent-1", "conv-1", "mock"))
    renderer.finish(TurnResult("end_turn", "hi", Usage(), 1, None), 5, {})
    assert renderer.lost_output == "it is closed"


def test_a_numbered_tool_line_fits_the_window_sharing_it_with_the_error():
    from mini_letta.cli.fit import text_columns
    from mini_letta.cli.render import tool_line

    call = ToolCall("c1", "Bash", '{"command": "' + "pytest -q tests/" * 10 + '"}')
    failed = ToolResult("FileNotFoundError: " + "no such thing " * 10 + "\nmore", is_error=True)
    line = tool_line(call, failed, 3, 60)
    assert line.startswith("  ⚙ [3] Bash: pytest -q") and text_columns(line) <= 60
    what, _, error = line.partition(" ✗ ")
    assert what.endswith("…") and error.startswith("FileNotFoundError:") and error.endswith("…")
    assert tool_line(call, ToolResult("a\nb"), 1, 40).endswith("✓ 2 lines")
    assert text_columns(tool_line(call, ToolResult("a\nb"), 1, 40)) <= 40
    assert tool_line(call, ToolResult("")).startswith("  ⚙ Bash: ")  # headless: no number


def test_notices_wrap_to_the_renderers_width():
    err = io.StringIO()
    renderer = Renderer("text", io.StringIO(), err, width=lambda: 40)
    renderer.notice("reflection", "  ☾ reflection r1: failed — " + "the model said no " * 4, {})
    rows = err.getvalue().splitlines()
    assert len(rows) > 1 and all(len(row) <= 40 for row in rows)
    assert all(row.startswith("    ") for row in rows[1:])
