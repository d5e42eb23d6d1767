"""Fitting output into a terminal's columns: cuts end in an ellipsis, wraps lose nothing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mini_letta.cli.fit import fit_line, text_columns, wrap_line, wrap_lines


def test_fit_line_keeps_the_indent_and_spacing_and_ends_in_an_ellipsis():
    line = "    ├── persona.md  — Who I am and how I work; I revise it as I learn."
    fitted = fit_line(line, 40)
    assert fitted.startswith("    ├── persona.md  — ") and fitted.endswith("…")
    assert text_columns(fitted) <= 40
    assert fit_line(line, None) == line and fit_line("short", 40) == "short"


def test_wrap_line_moves_words_down_with_a_hanging_indent():
    rows = wrap_line("  last run    r1: failed — the provider said no twice", 30, 14)
    assert rows == [
        "  last run    r1: failed — the",
        "              provider said no",
        "              twice",
    ]  # noqa: E501


def test_wrap_line_cuts_a_word_longer_than_a_row_across_rows():
    rows = wrap_line("path: " + "x" * 50, 24)
    assert [text_columns(row) for row in rows] == [24, 24, 12]  # the hang: two spaces
    assert "".join(row.strip() for row in rows) == "path: " + "x" * 50


def test_wide_characters_are_never_split():
    rows = wrap_line("记" * 30, 21)
    assert all(text_columns(row) <= 21 for row in rows)
    assert "".join(row.strip() for row in rows) == "记" * 30


def test_a_line_holding_newlines_is_wrapped_as_its_lines():
    assert wrap_lines(["one\ntwo"], 40) == ["one", "two"]
    assert wrap_lines(["a b c"], None) == ["a b c"]


@given(
    text=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=300),
    width=st.integers(20, 120),
    hang=st.none() | st.integers(0, 40),
)
def test_wrapping_fits_every_row_and_keeps_every_character(text, width, hang):
    rows = wrap_line(text, width, hang)
    assert all(text_columns(row) <= width for row in rows)
    assert "".join("".join(rows).split()) == "".join(text.split())


@pytest.mark.parametrize("width", [1, 8, 40])
def test_fit_line_never_exceeds_the_width(width):
    assert text_columns(fit_line("  " + "word " * 30, width)) <= max(width, 3)
