"""normalize_history: what a provider sends is always a history the APIs accept."""

from __future__ import annotations

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.llm.history import MISSING_RESULT, arguments_object, normalize_history


def _m(mid: str, role: str, content: str = "", **fields) -> Message:
    return Message(mid, role, content, "t", **fields)  # type: ignore[arg-type]


def _shape(messages: list[Message]) -> list[tuple[str, str | None]]:
    return [(m.role, m.tool_call_id or m.content) for m in messages]


def test_history_passes_a_clean_conversation_unchanged():
    clean = [
        _m("1", "user", "hi"),
        _m("2", "assistant", "", tool_calls=(ToolCall("c1", "Read", "{}"),)),
        _m("3", "tool", "body", tool_call_id="c1"),
        _m("4", "assistant", "done"),
        _m("5", "user", "next"),
    ]
    assert normalize_history(clean) == clean


def test_history_fills_unanswered_calls_and_drops_orphan_results():
    history = [
        _m("1", "user", "hi"),
        _m("2", "tool", "orphan", tool_call_id="ghost"),
        _m(
            "3",
            "assistant",
            "",
            tool_calls=(ToolCall("a", "Bash", "{}"), ToolCall("b", "Read", "{}")),
        ),
        _m("4", "tool", "ran", tool_call_id="a"),
        _m("5", "tool", "duplicate", tool_call_id="a"),
        _m("6", "user", "interrupted, go on"),
    ]
    out = normalize_history(history)
    assert _shape(out) == [
        ("user", "hi"),
        ("assistant", ""),
        ("tool", "a"),
        ("tool", "b"),
        ("user", "interrupted, go on"),
    ]
    stub = out[3]
    assert stub.content == MISSING_RESULT and stub.is_error and stub.name == "Read"


def test_history_drops_empty_and_trailing_assistant_text_and_marks_summaries():
    history = [
        _m("0", "summary", "we met"),
        _m("1", "user", "hi"),
        _m("2", "assistant", "   "),
        _m("3", "assistant", "partial answer"),
    ]
    out = normalize_history(history)
    assert [m.role for m in out] == ["user"]  # the summary and the next user turn are one
    assert out[0].content == "Summary of the earlier conversation:\nwe met\n\nhi"


def test_history_has_one_message_per_role_turn():
    calls = (ToolCall("a", "Glob", "{}"), ToolCall("b", "Glob", "{}"))
    out = normalize_history(
        [
            _m("r", "user", "<system-reminder>x</system-reminder>"),
            _m("1", "user", "hi"),
            _m("2", "assistant", "thinking"),
            _m("3", "assistant", "", tool_calls=calls),
            _m("4", "tool", "one", tool_call_id="a"),
            _m("5", "tool", "two", tool_call_id="b"),
            _m("6", "user", "next"),
        ]
    )
    assert [m.role for m in out] == ["user", "assistant", "tool", "tool", "user"]
    assert out[0].content == "<system-reminder>x</system-reminder>\n\nhi"
    assert (out[1].content, out[1].tool_calls) == ("thinking", calls)


def test_history_trailing_calls_get_results():
    out = normalize_history(
        [_m("1", "user", "x"), _m("2", "assistant", "", tool_calls=(ToolCall("c", "Glob", "{}"),))]
    )
    assert _shape(out)[-1] == ("tool", "c")


def test_arguments_object():
    assert arguments_object('{"a": 1}') == {"a": 1}
    assert arguments_object("") == {}
    assert arguments_object("{broken") == {}
    assert arguments_object("[1, 2]") == {}
