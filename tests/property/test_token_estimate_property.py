"""The token estimate only grows as text (or messages) are appended, and counts CJK exactly."""

from __future__ import annotations

import re
import sys
from array import array

from hypothesis import given
from hypothesis import strategies as st

from mini_letta.conversations.messages import Message
from mini_letta.llm.tokens import (
    cjk_characters,
    estimate_message_tokens,
    estimate_messages_tokens,
    estimate_tokens,
)

texts = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from("我更喜欢用缩进，。（）：カナ한국"),
    )
)

# The ranges as a character class: what the counting over UTF-16 bytes must agree with.
CJK_CLASS = re.compile(
    "[\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    "\U00020000-\U0003ffff]"
)
# Every range's edges and their neighbours, and astral characters on both sides of U+20000-3FFFF.
EDGES = [
    chr(c + d)
    for c in (0x2E80, 0x9FFF, 0xA960, 0xA97F, 0xAC00, 0xD7FF, 0xF900, 0xFAFF, 0xFE30, 0xFE4F,
              0xFF00, 0xFFEF, 0x20000, 0x3FFFF, 0x1F600, 0x10000)
    for d in (-1, 0, 1)
    if not 0xD800 <= c + d <= 0xDFFF
]  # fmt: skip
cjk_texts = st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(EDGES)))


@given(cjk_texts)
def test_cjk_count_is_the_character_class_count(text):
    assert cjk_characters(text) == len(CJK_CLASS.findall(text))


def test_cjk_count_agrees_on_every_code_point():
    # every code point but the surrogates, decoded at once (a chr() per point cost 0.2 s)
    points = array("I", range(0xD800)) + array("I", range(0xE000, 0x110000))
    everything = points.tobytes().decode(f"utf-32-{sys.byteorder[0]}e")
    for start in range(0, 0x110000, 256):
        at = start if start < 0xD800 else start - 0x800  # where `start` is in `everything`
        block = "" if 0xD800 <= start < 0xE000 else everything[at : at + 256]
        assert cjk_characters(block) == len(CJK_CLASS.findall(block)), hex(start)
        assert cjk_characters(block[:1] + "a") == len(CJK_CLASS.findall(block[:1])), hex(start)


@given(texts, texts)
def test_appending_text_never_lowers_the_estimate(head, tail):
    assert estimate_tokens(head + tail) >= estimate_tokens(head)
    assert estimate_tokens(head + tail) <= estimate_tokens(head) + estimate_tokens(tail) + 1


@given(texts, texts)
def test_appending_to_a_message_never_lowers_its_estimate(head, tail):
    before = Message("msg-1", "user", head, "2026-10-08T16:06:58.000Z")
    after = Message("msg-1", "user", head + tail, "2026-10-08T16:06:58.000Z")
    assert estimate_message_tokens(after) >= estimate_message_tokens(before)


@given(st.lists(texts, max_size=8), texts)
def test_appending_a_message_never_lowers_the_total(contents, extra):
    messages = [Message(f"m{i}", "user", c, "t") for i, c in enumerate(contents)]
    longer = [*messages, Message("m-new", "assistant", extra, "t")]
    assert estimate_messages_tokens(longer) > estimate_messages_tokens(messages)
