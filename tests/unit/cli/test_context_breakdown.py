"""The /context bar: its width is fixed, its parts are proportional, an overfull window says so."""

from __future__ import annotations

from mini_letta.cli.context_breakdown import BAR_WIDTH, ContextBreakdown, render_breakdown

PARTS = (
    ("system prompt", 100),
    ("memory", 100),
    ("tools", 200),
    ("reminder", 0),
    ("messages", 400),
)


def _bar(lines: list[str]) -> str:
    return lines[0].split("[", 1)[1].split("]", 1)[0]


def test_the_bar_is_proportional_and_the_numbers_add_up():
    breakdown = ContextBreakdown(1600, 1280, PARTS, (("system/human.md", 30),))
    lines = render_breakdown(breakdown)
    bar = _bar(lines)
    assert len(bar) == BAR_WIDTH
    assert (bar.count("█"), bar.count("▓"), bar.count("▒"), bar.count("░")) == (2, 3, 5, 10)
    assert bar.count("·") == 20 and breakdown.free == 800
    assert lines[0].endswith("800 of 1600 tokens (50%)")
    assert not any("reminder" in line for line in lines)  # an empty reminder is not listed
    assert "        30  system/human.md" in lines


def test_an_overfull_window_fills_the_bar_and_says_by_how_much():
    breakdown = ContextBreakdown(500, 400, PARTS, ())
    lines = render_breakdown(breakdown)
    assert len(_bar(lines)) == BAR_WIDTH and "·" not in _bar(lines)
    assert "  ! over the window by 300 tokens" in lines


def test_in_a_narrow_window_the_bar_narrows_then_the_totals_go_below_it():
    from mini_letta.cli.fit import text_columns

    files = (("notes/" + "a-very-long-memory-file-name-" * 3 + ".md", 30),)
    breakdown = ContextBreakdown(1600, 1280, PARTS, files)
    at_60 = render_breakdown(breakdown, 60)
    assert 20 <= len(_bar(at_60)) < BAR_WIDTH and at_60[0].endswith("800 of 1600 tokens (50%)")
    at_40 = render_breakdown(breakdown, 40)
    assert at_40[1] == "  800 of 1600 tokens (50%)" and len(_bar(at_40)) == 40 - len("context  [] ")
    for lines, width in ((at_60, 60), (at_40, 40)):
        assert all(text_columns(line) <= width for line in lines), lines
        assert lines[-1].endswith("…")  # the long path
    assert render_breakdown(breakdown, 200) == render_breakdown(breakdown)
