"""clean_text and the message record: undecodable input becomes U+FFFD, valid text is kept."""

from __future__ import annotations

import json

import pytest

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.conversations.registry import create_conversation
from mini_letta.storage.text import clean_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("中文 ✓", "中文 ✓"),
        ("hi \udcff", "hi \ufffd"),  # argv / stdin byte 0xff, surrogate-escaped
        ("\udce4\udcb8\udcad", "中"),  # valid UTF-8 escaped under a non-UTF-8 locale
        ("a\ud800b", "a\ufffdb"),  # a lone surrogate from a JSON "\ud800" escape
        ("\udcff\ud800", "\ufffd\ufffd"),
    ],
    ids=["ascii", "cjk", "escaped-byte", "escaped-utf8", "lone-surrogate", "mixed"],
)
def test_clean_text(text, expected):
    assert clean_text(text) == expected
    clean_text(text).encode("utf-8")  # never raises


def test_a_message_with_undecodable_bytes_is_stored_as_valid_utf8(home, clock):
    store = create_conversation(home, "agent-test", clock)
    call = ToolCall("c1", "Read", '{"path": "\udcff.txt"}')
    message = Message("m1", "assistant", "saw \udcff", "t", tool_calls=(call,))
    store.append(message)
    raw = store.log.path.read_bytes().decode("utf-8")  # strict: valid UTF-8
    data = json.loads(raw)
    assert data["content"] == "saw \ufffd"
    assert data["toolCalls"][0]["arguments"] == '{"path": "\ufffd.txt"}'
    assert store.at_line(0) == message
