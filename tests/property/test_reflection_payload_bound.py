"""Property: whatever the messages, a payload's transcript lines stay within its token bound."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mini_letta.conversations.messages import ToolCall
from mini_letta.home import Home
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.reflection.run.payload import build_payload, truncate_middle
from mini_letta.reflection.state.watermark import ReflectionState
from support.clock import FakeClock
from support.reflection_kit import message, new_store

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3_000)
MESSAGE = st.tuples(st.sampled_from(["user", "assistant", "tool"]), TEXT, st.integers(0, 2))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(MESSAGE, min_size=1, max_size=25), budget=st.integers(256, 5_000))
def test_payload_stays_within_its_bound(tmp_path_factory, items, budget):
    clock = FakeClock()
    store = new_store(Home(tmp_path_factory.mktemp("home")), clock)
    batch = []  # one append: how the log was written is not what is checked
    for role, text, calls in items:
        tool_calls = tuple(ToolCall(f"c{n}", "Bash", text) for n in range(calls))
        if role == "tool":
            batch.append(message(clock, "tool", text, tool_call_id="c0", name="Bash"))
        else:
            batch.append(
                message(clock, role, text, tool_calls=tool_calls if role == "assistant" else ())
            )
    store.append(batch)
    payload = build_payload(store, ReflectionState(), name="p", clock=clock, max_tokens=budget)
    if payload is None:
        return
    lines = [json.dumps(m, ensure_ascii=False, separators=(",", ":")) for m in payload.messages]
    assert sum(estimate_tokens(line) + 1 for line in lines) == payload.tokens <= budget
    # the lines as the task joins them cost no more than their parts
    assert estimate_tokens("\n".join(lines)) <= payload.tokens
    assert payload.start_line == 0 and 0 < payload.slice_end_line <= store.count()


@given(text=TEXT, cap=st.integers(0, 3_000))
def test_truncate_middle_never_exceeds_its_cap(text, cap):
    assert len(truncate_middle(text, cap)) <= cap
