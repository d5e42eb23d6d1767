"""Payloads: normalisation, caps, redaction, the size bound, the snapshot, garbage collection."""

from __future__ import annotations

import json

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import ReflectionError
from mini_letta.memory.secrets import find_secret
from mini_letta.reflection.run.payload import (
    build_payload,
    clear_payloads,
    load_payload,
    normalise_message,
    truncate_middle,
)
from mini_letta.reflection.state.watermark import ReflectionState, Watermark
from support.reflection_kit import NEEDLES, SECRETS, add_turn, message, new_store


def test_planted_secrets_are_all_detected_by_the_scanner():
    assert len(SECRETS) >= 20
    assert all(find_secret(text) for text in SECRETS), [t for t in SECRETS if not find_secret(t)]


def test_no_planted_secret_reaches_the_payload(home, clock):
    store = new_store(home, clock)
    for n, secret in enumerate(SECRETS):
        call = ToolCall(f"c{n}", "Bash", json.dumps({"command": f"echo {secret}"}))
        store.append(
            [
                message(clock, "user", f"my credential is {secret} ok"),
                message(clock, "assistant", f"noted {secret}", tool_calls=(call,)),
                message(clock, "tool", f"output: {secret}\n", tool_call_id=f"c{n}", name="Bash"),
            ]
        )
    payload = build_payload(store, ReflectionState(), name="p", clock=clock, max_tokens=500_000)
    raw = payload.path.read_text(encoding="utf-8")
    leaked = [needle for needle in NEEDLES if needle in raw]
    assert leaked == []
    assert raw.count("<redacted:") >= 3 * len(SECRETS)


def test_normalised_shapes(clock):
    call = ToolCall("c1", "Grep", json.dumps({"pattern": "x" * 500}))
    assistant = message(clock, "assistant", "", tool_calls=(call,))
    data = normalise_message(assistant)
    assert data["role"] == "assistant" and data["content"] == ""
    args = data["toolCalls"][0]["arguments"]
    assert len(args) == 300 and data["toolCalls"][0]["name"] == "Grep"
    result = message(clock, "tool", "BEGIN:" + "x" * 3000 + ":END", tool_call_id="c1", name="Grep")
    content = normalise_message(result)["content"]
    assert len(content) == 2500
    assert content.startswith("BEGIN:") and content.endswith(":END")
    assert "[truncated, " in content
    assert normalise_message(message(clock, "summary", "earlier")) is None
    assert normalise_message(message(clock, "assistant", "  ")) is None
    error = normalise_message(message(clock, "tool", "boom", tool_call_id="c", is_error=True))
    assert error["isError"] is True


@pytest.mark.parametrize("cap", [10, 40, 300, 2500])
@pytest.mark.parametrize("size", [0, 5, 299, 2501, 100_000])
def test_truncate_middle_bound(cap, size):
    text = "".join(chr(ord("a") + n % 26) for n in range(size))
    out = truncate_middle(text, cap)
    assert len(out) <= cap
    if size <= cap:
        assert out == text
    else:
        assert len(out) == cap


def test_payload_file_shape_and_slice(home, clock):
    store = new_store(home, clock)
    first = add_turn(store, clock, "hello")
    payload = build_payload(store, ReflectionState(), name="run-1", clock=clock)
    assert payload.path == store.files.payloads_dir / "run-1.json"
    data = load_payload(payload.path)
    assert data["schemaVersion"] == 1 and data["type"] == "reflection_payload"
    assert data["conversationId"] == store.conversation_id
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]
    assert (payload.start_line, payload.slice_end_line) == (0, 2)
    assert payload.start_message_id == first[0].id and payload.end_message_id == first[1].id
    assert payload.end == Watermark(1, first[1].id)
    assert payload.steps == 1 and not payload.truncated


def test_nothing_unreflected_is_no_payload(home, clock):
    store = new_store(home, clock)
    assert build_payload(store, ReflectionState(), name="p", clock=clock) is None
    turn = add_turn(store, clock, "hello")
    done = ReflectionState(reflected_through_message_id=turn[1].id, reflected_through_line=1)
    assert build_payload(store, done, name="p", clock=clock) is None
    assert not store.files.payloads_dir.exists()


def test_only_dropped_messages_is_no_payload(home, clock):
    store = new_store(home, clock)
    store.append(message(clock, "summary", "a summary"))
    assert build_payload(store, ReflectionState(), name="p", clock=clock) is None


def test_snapshot_line_bounds_the_slice(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    boundary = store.count()
    add_turn(store, clock, "later")
    payload = build_payload(store, ReflectionState(), name="p", clock=clock, launch_line=boundary)
    assert [m["content"] for m in payload.messages] == ["one", "ok: one"]
    assert payload.slice_end_line == boundary and not payload.truncated


def test_budget_takes_the_oldest_part_and_the_rest_waits(home, clock):
    store = new_store(home, clock)
    for n in range(40):
        add_turn(store, clock, f"message {n} " + "x" * 200)
    payload = build_payload(store, ReflectionState(), name="p", clock=clock, max_tokens=500)
    assert payload.truncated and payload.tokens <= 500
    assert payload.messages[0]["content"].startswith("message 0 ")
    assert payload.messages[-1]["role"] == "assistant"  # cut before a user message
    assert payload.end.line == payload.slice_end_line - 1
    rest = ReflectionState(
        reflected_through_message_id=payload.end.message_id,
        reflected_through_line=payload.end.line,
    )
    following = build_payload(store, rest, name="q", clock=clock, max_tokens=500)
    assert following.start_line == payload.slice_end_line
    assert following.messages[0]["role"] == "user"


def test_one_message_bigger_than_the_budget_is_shrunk_to_fit(home, clock):
    store = new_store(home, clock)
    store.append(message(clock, "user", "HEAD" + "字" * 50_000 + "TAIL"))
    payload = build_payload(store, ReflectionState(), name="p", clock=clock, max_tokens=300)
    assert payload.tokens <= 300
    content = payload.messages[0]["content"]
    assert content.startswith("HEAD") and content.endswith("TAIL")


def test_clear_payloads_removes_earlier_files(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    payload = build_payload(store, ReflectionState(), name="old", clock=clock)
    assert clear_payloads(store) == 1
    assert not payload.path.exists()
    assert clear_payloads(store) == 0


def test_a_payload_that_no_longer_exists_is_a_clear_error(home, clock):
    store = new_store(home, clock)
    add_turn(store, clock, "one")
    payload = build_payload(store, ReflectionState(), name="p", clock=clock)
    payload.path.unlink()
    with pytest.raises(ReflectionError, match="no longer exists"):
        load_payload(payload.path)
    payload.path.write_text("{torn")
    with pytest.raises(ReflectionError, match="unreadable"):
        load_payload(payload.path)
