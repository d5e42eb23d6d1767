"""The CJK-aware estimate and its correction by reported usage."""

from __future__ import annotations

import pytest

from mini_letta.conversations.messages import Message, ToolCall, Usage
from mini_letta.llm.base import ToolSpec
from mini_letta.llm.tokens import (
    MESSAGE_OVERHEAD,
    corrected_tokens,
    estimate_message_tokens,
    estimate_prompt_tokens,
    estimate_request_tokens,
    estimate_tokens,
    estimate_tool_tokens,
)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("abcd", 1),
        ("abcde", 2),
        ("我更喜欢用", 5),
        ("（mock）我听到了：", 6 + 2),  # fullwidth brackets and colon count as CJK
        ("用 pnpm", 1 + 2),
        ("カタカナとひらがな", 9),
        ("한국어", 3),
        ("𠀀𠀁", 2),  # supplementary ideographs
        ("🙂🙂🙂🙂", 1),
    ],
    ids=[
        "empty",
        "ascii-4",
        "ascii-5",
        "han",
        "fullwidth",
        "mixed",
        "kana",
        "hangul",
        "ext-b",
        "emoji",
    ],
)
def test_estimate_tokens(text, tokens):
    assert estimate_tokens(text) == tokens


def _m(role, content="", **fields):
    return Message("msg-1", role, content, "2026-10-08T16:06:58.000Z", **fields)


def test_tool_calls_and_results_are_counted():
    call = ToolCall("call-1", "memory", '{"command":"create","path":"system/x.md"}')
    bare = _m("assistant")
    with_call = _m("assistant", tool_calls=(call,))
    assert estimate_message_tokens(with_call) > estimate_message_tokens(bare) + 10
    result = _m("tool", "ok", tool_call_id="call-1", name="memory")
    assert estimate_message_tokens(result) == MESSAGE_OVERHEAD + 1 + 2 + 2


def test_tool_schemas_count_in_the_prompt():
    spec = ToolSpec("memory", "Edit memory files.", {"type": "object", "properties": {}})
    assert estimate_tool_tokens(spec) > estimate_tokens(spec.description)
    assert estimate_prompt_tokens("system", [spec]) == 2 + estimate_tool_tokens(spec)
    assert estimate_request_tokens("system", [_m("user", "hi")], [spec]) == (
        estimate_prompt_tokens("system", [spec]) + MESSAGE_OVERHEAD + 1
    )


def _turns(usage: Usage | None, stop: str = "end_turn"):
    return [
        _m("user", "a" * 40),
        _m("assistant", "b" * 40, usage=usage, stop_reason=stop),
        _m("user", "c" * 40),
    ]


def test_no_usage_means_the_plain_estimate():
    messages = _turns(None)
    assert corrected_tokens(50, messages) == 50 + sum(map(estimate_message_tokens, messages))


def test_reported_usage_anchors_the_estimate():
    messages = _turns(Usage(400, 100))
    assert corrected_tokens(50, messages) == 500 + estimate_message_tokens(messages[2])


@pytest.mark.parametrize(
    ("usage", "stop", "anchor_from"),
    [
        (Usage(400, 100), "error", 0),
        (Usage(400, 100), "interrupted", 0),
        (Usage(0, 0), "end_turn", 0),
        (Usage(400, 100), "end_turn", 2),  # before a compaction: stale
        (Usage(5, 1), "end_turn", 0),  # far below our own count: not believed
    ],
    ids=["error", "interrupted", "zero", "stale", "implausible"],
)
def test_usage_that_cannot_be_trusted_is_ignored(usage, stop, anchor_from):
    messages = _turns(usage, stop)
    plain = 50 + sum(map(estimate_message_tokens, messages))
    assert corrected_tokens(50, messages, anchor_from) == plain
