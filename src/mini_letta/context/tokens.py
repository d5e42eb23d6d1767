"""A CJK-aware token estimate that needs no tokenizer files.

About one token per CJK character (Han, kana, hangul, fullwidth punctuation) and about four
characters per token for everything else. The estimate only grows as text is appended, which
is what compaction thresholds need. Providers' reported usage corrects it where available.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from mini_letta.conversations.messages import Message

MESSAGE_OVERHEAD = 4  # role markers and separators around every message

_CJK_RANGES = (
    (0x2E80, 0x9FFF),  # CJK radicals, kana, bopomofo, unified ideographs
    (0xA960, 0xA97F),
    (0xAC00, 0xD7FF),  # hangul
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),  # fullwidth forms, incl. （ ） and ：
    (0x20000, 0x3FFFF),
)


def _is_cjk(code: int) -> bool:
    return any(low <= code <= high for low, high in _CJK_RANGES)


def estimate_tokens(text: str) -> int:
    cjk = sum(1 for char in text if ord(char) >= 0x2E80 and _is_cjk(ord(char)))
    other = len(text) - cjk
    return cjk + (other + 3) // 4


def estimate_message_tokens(message: Message) -> int:
    total = MESSAGE_OVERHEAD + estimate_tokens(message.content)
    for call in message.tool_calls:
        total += MESSAGE_OVERHEAD + estimate_tokens(call.name) + estimate_tokens(call.arguments)
    return total


def estimate_messages_tokens(messages: Iterable[Message]) -> int:
    return sum(estimate_message_tokens(message) for message in messages)


def estimate_schema_tokens(schema: object) -> int:
    return estimate_tokens(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))
