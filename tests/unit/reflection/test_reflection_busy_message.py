"""The "another reflection is running" line reads properly with and without a known holder."""

from __future__ import annotations

import pytest

from mini_letta.reflection.state.outcome import busy_message, skip_message


@pytest.mark.parametrize(
    ("holder", "expected"),
    [
        ("run r1, pid 7 on box", "Another reflection of this agent is running (run r1, pid 7 on "
         "box); try again when it finishes."),
        ("", "Another reflection of this agent is running; try again when it finishes."),
    ],
    ids=["known-holder", "holder-gone"],
)  # fmt: skip
def test_busy_message(holder, expected):
    assert busy_message(holder, "try again when it finishes.") == expected
    assert skip_message("busy", holder) == expected
    assert "(a run)" not in expected and "()" not in expected
