"""A CJK-aware token estimate that needs no tokenizer files, and its usage correction.

About one token per CJK character (Han, kana, hangul, fullwidth punctuation) and about four
characters per token for everything else; every message, tool call and tool schema adds a small
overhead. The estimate only grows as text is appended, which is what compaction thresholds need.
`corrected_tokens` anchors it on the provider's reported usage where there is some.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from mini_letta.conversations.messages import Message, ToolCall

if TYPE_CHECKING:
    from mini_letta.llm.base import ToolSpec

MESSAGE_OVERHEAD = 4  # role markers and separators around every message, call and schema
# Below this share of our own estimate a reported usage is not believed (for example a provider
# that reports only the uncached part of the prompt); the estimate is used instead.
_MIN_TRUSTED_USAGE = 0.5

# The CJK ranges (radicals, kana, bopomofo and ideographs U+2E80-9FFF, hangul jamo extension
# A960-A97F, hangul AC00-D7FF, compatibility ideographs F900-FAFF, vertical forms FE30-FE4F,
# fullwidth forms FF00-FFEF, and U+20000-3FFFF), by 256-code-point block: a UTF-16 unit's high
# byte. Counting over the UTF-16 bytes needs no regex: a character class this size takes
# ~40 M instructions (~4 ms) to compile, a sixth of a mock turn.
_WHOLE_BLOCKS = frozenset([*range(0x2F, 0xA0), *range(0xAC, 0xD8), 0xF9, 0xFA])
_NOT_WHOLE = bytes(b for b in range(256) if b not in _WHOLE_BLOCKS)
# Blocks CJK for a range of low bytes; D8 is the first unit of U+20000-3FFFF's surrogate pair.
_PART_BLOCKS = {
    0x2E: (0x80, 0xFF),
    0xA9: (0x60, 0x7F),
    0xFE: (0x30, 0x4F),
    0xFF: (0x00, 0xEF),
    0xD8: (0x40, 0xBF),
}
_NOT_PART = bytes(b for b in range(256) if b not in _PART_BLOCKS)


def cjk_characters(text: str) -> int:
    """How many characters of `text` are CJK (the ranges above)."""
    if text.isascii():
        return 0
    units = text.encode("utf-16-be", "surrogatepass")
    high = units[::2]
    count = len(high.translate(None, _NOT_WHOLE))
    if not high.translate(None, _NOT_PART):
        return count  # no character in a partly CJK block
    for block, (first, last) in _PART_BLOCKS.items():
        at = high.find(block)
        while at >= 0:
            count += first <= units[2 * at + 1] <= last
            at = high.find(block, at + 1)
    return count


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    cjk = cjk_characters(text)
    other = len(text) - cjk
    return cjk + (other + 3) // 4


def estimate_call_tokens(call: ToolCall) -> int:
    return (
        MESSAGE_OVERHEAD
        + estimate_tokens(call.id)
        + estimate_tokens(call.name)
        + estimate_tokens(call.arguments)
    )


def estimate_message_tokens(message: Message) -> int:
    total = MESSAGE_OVERHEAD + estimate_tokens(message.content)
    if message.tool_call_id:
        total += estimate_tokens(message.tool_call_id)
    if message.name and message.role == "tool":
        total += estimate_tokens(message.name)
    return total + sum(estimate_call_tokens(call) for call in message.tool_calls)


def estimate_response_tokens(text: str, calls: Iterable[ToolCall]) -> int:
    """What an assistant message with this text and these calls will cost in the next request."""
    return MESSAGE_OVERHEAD + estimate_tokens(text) + sum(estimate_call_tokens(c) for c in calls)


def estimate_messages_tokens(messages: Iterable[Message]) -> int:
    return sum(estimate_message_tokens(message) for message in messages)


def estimate_schema_tokens(schema: object) -> int:
    return estimate_tokens(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def estimate_tool_tokens(spec: ToolSpec) -> int:
    return (
        MESSAGE_OVERHEAD
        + estimate_tokens(spec.name)
        + estimate_tokens(spec.description)
        + estimate_schema_tokens(spec.parameters)
    )


def estimate_prompt_tokens(system: str, tools: Iterable[ToolSpec]) -> int:
    """The fixed part of every request: the system prompt and the tool schemas."""
    return estimate_tokens(system) + sum(estimate_tool_tokens(spec) for spec in tools)


def estimate_request_tokens(
    system: str, messages: Iterable[Message], tools: Iterable[ToolSpec]
) -> int:
    return estimate_prompt_tokens(system, tools) + estimate_messages_tokens(messages)


def corrected_tokens(prompt_tokens: int, messages: Sequence[Message], anchor_from: int = 0) -> int:
    """The context's size, anchored on the last reported usage at or after `anchor_from`.

    The anchor is the newest assistant message (at index >= `anchor_from`) that finished
    normally and carries usage: its input + output tokens are what the provider counted for
    everything up to and including it; only the messages after it are estimated. Messages before
    `anchor_from` were sent in another context (before a compaction), so their usage is stale.
    """
    plain = [estimate_message_tokens(message) for message in messages]
    estimate = prompt_tokens + sum(plain)
    for index in range(len(messages) - 1, anchor_from - 1, -1):
        message = messages[index]
        usage = message.usage
        if message.role != "assistant" or message.stop_reason in ("error", "interrupted"):
            continue
        if usage is None or usage.input_tokens <= 0:
            continue
        reported = usage.input_tokens + usage.output_tokens
        up_to = prompt_tokens + sum(plain[: index + 1])
        if reported < _MIN_TRUSTED_USAGE * up_to:
            return estimate
        return reported + sum(plain[index + 1 :])
    return estimate
