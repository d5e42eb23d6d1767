"""Property: the secret scanner's work is linear in its input, whatever the input.

Regex steps cannot be counted, so the scanner reports every window it runs a shape in. Each
window is at most WINDOW characters (a constant cost), and there are never more windows than
occurrences of the patterns' literal anchors (plus closing lines): no position is examined
twice by a pattern, and nothing is examined where no anchor is. Both hold for a text and for
the same text repeated eight times.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mini_letta.memory.secret_patterns import PATTERNS, WINDOW
from mini_letta.memory.secrets import scan_secrets

# Pieces that start, continue or almost complete the shapes the scanner looks for.
FRAGMENTS = [
    *sorted({anchor for pattern in PATTERNS for anchor in pattern.anchors}),
    "PASSWORD", "Bearer", "-----END ", "-----END RSA PRIVATE KEY-----", "RSA ", "PRIVATE KEY-----",
    "a", "Z", "0", "9", "_", "-", ".", "/", "+", "=", ":", "@", " ", "\n", "\t", '"', "'",
    " is ", " is: ", "是", "：", "x" * 40, "A1b2" * 10,
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
        haystack = folded if pattern.fold else text
        positions = set()
        for anchor in pattern.anchors:
            positions |= {i for i in range(len(text)) if haystack.startswith(anchor, i)}
        count += len(positions)
        if pattern.closing is not None:
            count += sum(text.startswith(pattern.closing[0], i) for i in range(len(text)))
    return count


@settings(max_examples=150, deadline=None)
@given(text=ADVERSARIAL)
def test_secret_scan_examines_bounded_windows_only_at_anchors(text):
    for sample in (text, text * 8):
        windows = _windows(sample)
        assert all(0 <= a <= b <= len(sample) and b - a <= WINDOW for a, b in windows)
        assert len(windows) <= _occurrences(sample)
