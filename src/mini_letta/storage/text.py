"""Text that can be stored: no lone surrogates, so it always encodes as UTF-8.

Python turns undecodable bytes (from argv, a non-UTF-8 stdin, file names) into lone
surrogates; JSON lines and provider requests cannot carry them. `clean_text` decodes such
bytes with U+FFFD in their place, once, where text becomes a record; valid text is untouched.
"""

from __future__ import annotations

import re

_SURROGATES = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(text: str) -> str:
    """`text` with every undecodable byte (a lone surrogate) replaced by U+FFFD."""
    if text.isascii() or _SURROGATES.search(text) is None:
        return text
    try:  # surrogate-escaped bytes: decode them as UTF-8 would, with replacements
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # other lone surrogates (e.g. a JSON "\ud800" escape)
        return _SURROGATES.sub(REPLACEMENT, text)
