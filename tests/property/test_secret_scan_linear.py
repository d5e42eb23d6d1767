"""Property: the secret scanner's work is linear in its input, whatever the input.

Regex steps cannot be counted, so the scanner reports every window it runs a pattern in. Each
window is bounded (so each costs at most a constant), and repeating an adversarial text eight
times examines at most eight times the windows: no pattern revisits what it has already seen.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mini_letta.memory.secret_patterns import PATTERNS, WINDOW
from mini_letta.memory.secrets import scan_secrets

# Pieces that start, continue or almost complete the shapes the scanner looks for.
FRAGMENTS = [
    *{anchor for pattern in PATTERNS for anchor in pattern.anchors},
    "PASSWORD", "Bearer", "-----END ", "-----END RSA PRIVATE KEY-----", "RSA ", "PRIVATE KEY-----",
    "a", "Z", "0", "9", "_", "-", ".", "/", "+", "=", ":", "@", " ", "\n", "\t", '"', "'",
    " is ", " is: ", "是", "：", "x" * 40, "A1b2" * 10,
]  # fmt: skip
ADVERSARIAL = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=60).map("".join)


def _windows(text: str) -> list[tuple[int, int]]:
    seen: list[tuple[int, int]] = []
    scan_secrets(text, lambda start, end: seen.append((start, end)))
    return seen


@settings(max_examples=150, deadline=None)
@given(text=ADVERSARIAL)
def test_secret_scan_windows_are_bounded_and_scale_linearly(text):
    once = _windows(text)
    assert all(0 <= start <= end <= len(text) and end - start <= WINDOW for start, end in once)
    assert len(once) <= len(PATTERNS) * len(text) + 1
    eight = _windows(text * 8)
    assert all(end - start <= WINDOW for start, end in eight)
    assert len(eight) <= 8 * len(once) + 8
