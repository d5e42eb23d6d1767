"""Message camelCase mapping round-trips; the token estimate only grows as text is appended."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from mini_letta.conversations.messages import Message, ToolCall, Usage
from mini_letta.llm.tokens import estimate_tokens

text = st.text(max_size=200)
calls = st.builds(ToolCall, st.text(min_size=1, max_size=10), st.text(min_size=1), text)
messages = st.builds(
    Message,
    id=st.text(min_size=1, max_size=40),
    role=st.sampled_from(["user", "assistant", "tool", "summary"]),
    content=text,
    created_at=st.text(min_size=1, max_size=30),
    tool_calls=st.lists(calls, max_size=3).map(tuple),
    tool_call_id=st.none() | st.text(max_size=10),
    name=st.none() | st.text(max_size=10),
    is_error=st.booleans(),
    model=st.none() | st.text(max_size=10),
    usage=st.none() | st.builds(Usage, *(st.integers(0, 10**6),) * 4),
    stop_reason=st.none() | st.sampled_from(["end_turn", "tool_use", "interrupted"]),
)


@given(messages)
def test_message_json_round_trip(message):
    on_disk = json.loads(json.dumps(message.to_json(), ensure_ascii=False))
    assert Message.from_json(on_disk) == message


@given(st.text(max_size=300), st.text(max_size=300))
def test_token_estimate_grows_with_appended_text(prefix, suffix):
    assert estimate_tokens(prefix + suffix) >= estimate_tokens(prefix)
