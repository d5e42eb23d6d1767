"""Property: the secret scanner's work is linear in its input, whatever the input.

Regex steps cannot be counted, so the scanner reports every window it runs a shape in. Each
window is at most LOOKBACK + WINDOW characters (a constant cost), and there are never more
windows than occurrences of the patterns' literal anchors: no position is examined twice by a
pattern, and nothing is examined where no anchor is. Both hold for a text and for the same text
repeated eight times. A match that fills its window (a long key block) is continued past it
once; the large inputs below, built to start every shape and almost finish it, are the
guard on those continuations and on each window's own cost (under a timeout).
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mini_letta.memory.secret_patterns import LOOKBACK, PATTERNS, WINDOW
from mini_letta.memory.secrets import redact_secrets, scan_secrets

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
    """Anchor occurrences a linear scanner may examine: per pattern, per position (overlapping
    ones too: a lookahead matches at every position where the anchor starts)."""
    folded = text.encode("ascii", "replace").lower().decode("ascii")
    count = 0
    for pattern in PATTERNS:
        positions: set[int] = set()
        for anchor in pattern.anchors:
            haystack = folded if pattern.fold and anchor.isascii() else text
            found = re.finditer(f"(?={re.escape(anchor)})", haystack)
            positions.update(match.start() for match in found)
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


@given(text=ADVERSARIAL)
@example(text="pass：")  # a value ran over the full-width colon that separates the next one
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
        assert _deepest_shape_cover((anchor + joiner) * 60) <= MAX_COVER, anchor


# Inputs built to start every shape and almost finish it: each anchor repeated with each
# joiner between (just past one window, so a value that ran to the window's end would be
# continued), 20,000 of the anchors and pieces in a seeded random order,
# without spaces (so a value that ran to the window's end would be rescanned from every anchor
# after it), one long key body (24 windows), many short blocks, and the shapes of the issue's
# reproducer at 40,000 characters each (where the quadratic scanner took hours on a megabyte:
# at 20,000 four of the six shapes each take it over a minute, at 5,000 3-4 s, so at 40,000
# this test runs minutes past its timeout; the linear scan takes about 0.1 s for all six).
JOINERS = ["", "=", ": ", "A1b2" * 12]
REPRODUCER = {
    "one-character": "x",
    "dotted": "a.",
    "hex": "0123456789abcdef",
    "key-names": "api_key_token_secret_",
    "pem-headers": "-----BEGIN PRIVATE KEY-----",
    "url-pieces": "a://b:c",
}


def _adversarial_inputs() -> Iterator[str]:
    for anchor, joiner in itertools.product(ANCHORS, JOINERS):
        unit = anchor + joiner
        yield unit * ((WINDOW + LOOKBACK + 200) // len(unit))
    pieces = [*FRAGMENTS, *(p.strip() for p in FRAGMENTS if p.strip())]
    rng = random.Random(20)
    yield "".join(rng.choice(pieces) for _ in range(20_000))
    yield "-----BEGIN PRIVATE KEY-----\n" + "QUJD" * 25_000  # one long body
    yield ("-----BEGIN PRIVATE KEY-----\n" + "QUJD" * 30 + "\n") * 1_000
    for unit in REPRODUCER.values():
        yield unit * (40_000 // len(unit))


@pytest.mark.timeout(120)
def test_secret_scan_of_adversarial_inputs_finishes():
    """A shape that rescanned its whole window from every anchor takes minutes on these; a
    hang guard, not a timer (pytest-timeout interrupts a regex too: the engine checks for
    signals)."""
    scanned = 0
    for text in _adversarial_inputs():
        redact_secrets(text)
        scanned += 1
    assert scanned == len(ANCHORS) * len(JOINERS) + 3 + len(REPRODUCER)
