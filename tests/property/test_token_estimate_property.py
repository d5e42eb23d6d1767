"""The token estimate only grows as text (or messages) are appended."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mini_letta.conversations.messages import Message
from mini_letta.llm.tokens import (
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
