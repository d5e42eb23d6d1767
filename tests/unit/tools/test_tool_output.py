"""Tool output cleaning: terminal control sequences go, and hostile output costs linear time."""

from __future__ import annotations

import pytest

from mini_letta.tools.output import cap_text, strip_ansi


def test_colour_and_title_sequences_are_removed():
    coloured = "\x1b[1;31merror\x1b[0m: \x1b]0;title\x07done"
    assert strip_ansi(coloured) == "error: done"


def test_an_osc_sequence_ended_by_st_is_removed_too():
    # OSC 8 (a hyperlink) and OSC 52 (write the clipboard) are often ended by ESC \ not BEL
    link = "\x1b]8;;https://example.com\x1b\\here\x1b]8;;\x1b\\ and \x1b]52;c;cHduZWQ=\x1b\\."
    assert strip_ansi(link) == "here and ."


def test_an_unfinished_sequence_is_kept_as_text():
    assert strip_ansi("a \x1b]no end") == "a \x1b]no end"


@pytest.mark.timeout(20)
def test_many_unfinished_osc_starts_take_linear_time():
    # each start used to scan to the end of the output for a BEL: quadratic, hours for this
    hostile = "\x1b]" * 300_000 + "tail"
    assert strip_ansi(hostile) == hostile


def test_cap_text_keeps_head_and_tail():
    capped = cap_text("a" * 500 + "b" * 500, 200)
    assert capped.startswith("a") and capped.endswith("b") and len(capped) <= 200
