"""The test suite's forker (tests/support/forker.py): lines that reach the pipe together are
each read, none left waiting in a buffer while the reader waits on the empty pipe."""

from __future__ import annotations

import os

import pytest

from support.forker import Forker


@pytest.mark.timeout(20)
def test_lines_written_together_are_each_read():
    forker = Forker("support.forker:say", [], os.environ)
    try:
        forker.start("k", {"text": "ONE k\nTWO k\nTHREE k\n"})
        while ("THREE", "k") not in forker.heard:
            forker.read()
        assert forker.wait("k") == 0
        assert forker.heard == [("ONE", "k"), ("TWO", "k"), ("THREE", "k")]
    finally:
        forker.close()
