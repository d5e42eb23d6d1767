"""Property: the secret scanner's work is linear in its input, whatever the input.

Regex steps cannot be counted, so the scanner reports every window it runs a shape in. Each
window is at most LOOKBACK + WINDOW characters (a constant cost), and there are never more
windows than occurrences of the patterns' literal anchors: no position is examined twice by a
pattern, and nothing is examined where no anchor is. Both hold for a text and for the same text
repeated eight times. A match that fills its window (a long key block) is continued past it
once; the megabyte inputs below, built to start every shape and almost finish it, are the
guard on those continuations and on each window's own cost (a subprocess under a timeout).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mini_letta.memory.secret_patterns import LOOKBACK, PATTERNS, WINDOW
from mini_letta.memory.secrets import scan_secrets

SRC = Path(__file__).resolve().parents[2] / "src"
ANCHORS = sorted({anchor for pattern in PATTERNS for anchor in pattern.anchors})

# Pieces that start, continue or almost complete the shapes the scanner looks for.
FRAGMENTS = [
    *ANCHORS,
    "PASSWORD", "Bearer", "Basic ", "-----END ", "-----END RSA PRIVATE KEY-----", "RSA ",
    "PRIVATE KEY-----", "a", "Z", "0", "9", "_", "-", ".", "/", "+", "=", ":", "@", " ", "\n",
    "\\n", "\t", '"', "'", " is ", " is: ", " for the NAS", "是", "：", "x" * 40, "A1b2" * 10,
    "0123456789abcdef" * 2, "12345678", "4242 4242 4242 4242", " exp 12/29 ", "cvv 123",
    "YWRtaW46aHVudGVyMg==", "-us1", "年",
]  # fmt: skip
ADVERSARIAL = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60).map("".join)


def _windows(text: str) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []
    scan_secrets(text, lambda start, end: seen.append((start, end)))
    return seen


def _occurrences(text: str) -> int:
    """Anchor occurrences a linear scanner may examine: per pattern, per position."""
    folded = text.encode("ascii", "replace").lower().decode("ascii")
    count = 0
    for pattern in PATTERNS:
        positions = set()
        for anchor in pattern.anchors:
            haystack = folded if pattern.fold and anchor.isascii() else text
            positions |= {i for i in range(len(text)) if haystack.startswith(anchor, i)}
        count += len(positions)
    return count


def _deepest_shape_cover(text: str) -> int:
    """The most spans one pattern's shape matched (before judging them) over one character."""
    spans: dict[int, list[tuple[int, int]]] = {}
    scan_secrets(text, shaped=lambda index, a, b: spans.setdefault(index, []).append((a, b)))
    deepest = 0
    for found in spans.values():
        depth = [0] * (len(text) + 1)
        for a, b in found:
            depth[a] += 1
            depth[b] -= 1
        deepest = max(deepest, max(itertools.accumulate(depth)))
    return deepest


@settings(max_examples=150, deadline=None)
@given(text=ADVERSARIAL)
def test_secret_scan_examines_bounded_windows_only_at_anchors(text):
    for sample in (text, text * 8):
        windows = _windows(sample)
        assert all(0 <= a <= b <= len(sample) and b - a <= LOOKBACK + WINDOW for a, b in windows)
        assert len(windows) <= _occurrences(sample)
        # a value rejected by its check is not rescanned from every anchor inside it
        assert _deepest_shape_cover(sample) <= MAX_COVER


MAX_COVER = 4


@pytest.mark.parametrize("joiner", ["", "=", ": ", " is ", "A1b2" * 3])
def test_secret_scan_shapes_never_pile_up_on_repeated_anchors(joiner):
    for anchor in ANCHORS:
        assert _deepest_shape_cover((anchor + joiner) * 300) <= MAX_COVER, anchor


# Inputs built to start every shape and almost finish it: each anchor repeated with each
# joiner between (10,000 characters), and half a megabyte of every anchor and piece in a seeded
# random order, without spaces (so a value that ran to the window's end would be rescanned
# from every anchor after it).
JOINERS = ["", "=", ": ", "A1b2" * 12]
SCRIPT = """
import random, sys
from mini_letta.memory.secrets import redact_secrets
anchors, joiners, pieces = eval(sys.stdin.read())
scanned = 0
for anchor in anchors:
    for joiner in joiners:
        unit = anchor + joiner
        redact_secrets(unit * (10_000 // len(unit)))
        scanned += 1
rng = random.Random(20)
redact_secrets("".join(rng.choice(pieces) for _ in range(50_000))[:500_000])
redact_secrets("-----BEGIN PRIVATE KEY-----\\n" + "QUJD" * 125_000)  # one long body
redact_secrets(("-----BEGIN PRIVATE KEY-----\\n" + "QUJD" * 30 + "\\n") * 3_500)
print("scanned", scanned + 3)
"""


def test_secret_scan_of_adversarial_inputs_for_every_anchor_finishes():
    """A shape that rescanned its whole window from every anchor takes minutes on these; a
    hang guard, not a timer."""
    pieces = [*FRAGMENTS, *(p.strip() for p in FRAGMENTS if p.strip())]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        input=repr((ANCHORS, JOINERS, pieces)),
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    assert done.stdout.strip() == f"scanned {len(ANCHORS) * len(JOINERS) + 3}", done.stderr
