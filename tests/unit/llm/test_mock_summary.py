"""The mock summariser: extractive, deterministic, bounded, never nesting."""

from __future__ import annotations

from mini_letta.context.summariser import render_summary_content, render_transcript
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.llm.base import ModelRequest
from mini_letta.llm.mock_summary import respond_summary
from mini_letta.llm.tokens import estimate_tokens


def _m(role, content="", **fields):
    return Message("msg-1", role, content, "2026-10-08T16:06:58.000Z", **fields)


def _request(messages, max_tokens=400):
    transcript = "Transcript:\n\n" + render_transcript(messages) + "\n\nWrite the summary now."
    return ModelRequest(
        system="summarise",
        messages=(_m("user", transcript),),
        purpose="summary",
        max_output_tokens=max_tokens,
    )


def test_keeps_user_statements_and_notes_tool_use():
    call = ToolCall("c1", "memory", '{"command": "create"}')
    messages = [
        _m("user", "我更喜欢用 tabs 缩进"),
        _m("assistant", "好的", tool_calls=(call,)),
        _m("tool", "failed", tool_call_id="c1", name="memory", is_error=True),
        _m("user", "I prefer\n  pnpm   over npm"),
        _m("assistant", "（mock）我听到了：whatever"),
    ]
    text = respond_summary(_request(messages)).text
    assert text.split("\n") == [
        "User said:",
        "- 我更喜欢用 tabs 缩进",
        "- I prefer pnpm over npm",
        "Tools used: memory ×1 (1 error)",
    ]


def test_folds_an_earlier_summary_instead_of_nesting_it():
    first = respond_summary(_request([_m("user", "第一句"), _m("user", "第二句")])).text
    previous = _m("summary", render_summary_content(first))
    second = respond_summary(_request([previous, _m("user", "第三句")])).text
    assert second.split("\n") == ["User said:", "- 第一句", "- 第二句", "- 第三句"]
    third = respond_summary(_request([_m("summary", render_summary_content(second))])).text
    assert third == second


def test_stays_within_its_budget_keeping_the_newest():
    messages = [_m("user", f"第{i}条：今天我们决定了很多事情") for i in range(50)]
    text = respond_summary(_request(messages, max_tokens=100)).text
    assert estimate_tokens(text) <= 100
    assert "- 第49条" in text and "第0条" not in text
    assert "earlier statements left out)" in text
    again = respond_summary(_request([_m("summary", render_summary_content(text))], 100)).text
    assert again == text  # the left-out count is carried, not lost or doubled


def test_is_deterministic_and_handles_an_empty_transcript():
    messages = [_m("user", "一"), _m("assistant", "二")]
    assert respond_summary(_request(messages)) == respond_summary(_request(messages))
    empty = ModelRequest(system="s", messages=(), purpose="summary")
    assert respond_summary(empty).text == "User said:\n(nothing said yet)"
