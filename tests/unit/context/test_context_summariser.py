"""The summariser's transcript, truncation helpers and request."""

from __future__ import annotations

import pytest

from mini_letta.context.summariser import (
    SUMMARY_HEADER,
    clip_to_tokens,
    focus_outro,
    middle_truncate,
    raw_summary,
    render_summary_content,
    render_transcript,
    summarise,
    transcript_budget,
)
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.errors import ContextWindowTooSmallError
from mini_letta.llm.mock import MockProvider
from mini_letta.llm.tokens import estimate_tokens
from support.clock import FakeClock
from support.compaction_fakes import RecordingProvider


def _m(role, content="", **fields):
    return Message("msg-1", role, content, "2026-10-08T16:06:58.000Z", **fields)


def test_render_transcript_one_entry_per_message():
    call = ToolCall("c1", "memory", '{"path": "system/human.md"}')
    messages = [
        _m("summary", render_summary_content("User said:\n- 旧的")),
        _m("user", "第一行\n第二行"),
        _m("assistant", "", tool_calls=(call,)),
        _m("tool", "x" * 3000, tool_call_id="c1", name="memory", is_error=True),
        _m("assistant", "好的"),
        _m("assistant", ""),  # nothing to say: left out
    ]
    lines = render_transcript(messages).split("\n")
    assert lines[0] == "[earlier summary] User said:"
    assert lines[1] == "  - 旧的"
    assert lines[2:4] == ["[user] 第一行", "  第二行"]
    assert lines[4] == '[assistant] -> memory({"path": "system/human.md"})'
    assert lines[5].startswith("[tool memory error] xxx") and "characters left out" in lines[5]
    assert len(lines[5]) < 2100
    assert lines[6:] == ["[assistant] 好的"]


def test_raw_summary_drops_only_the_header():
    content = render_summary_content("User said:\n- a")
    assert content.startswith(SUMMARY_HEADER)
    assert raw_summary(_m("summary", content)) == "User said:\n- a"
    assert raw_summary(_m("summary", "no header here")) == "no header here"


@pytest.mark.parametrize("limit", [20, 50, 200], ids=["tiny", "small", "medium"])
def test_middle_truncate_fits_and_keeps_both_ends(limit):
    text = "开头" + "中间的内容" * 200 + "结尾"
    cut = middle_truncate(text, limit)
    assert estimate_tokens(cut) <= limit
    assert cut.startswith("开头") and cut.endswith("结尾")
    assert "characters left out" in cut


def test_middle_truncate_leaves_short_text_alone():
    assert middle_truncate("short", 10) == "short"


def test_clip_to_tokens():
    assert clip_to_tokens("abc", 5) == "abc"
    clipped = clip_to_tokens("字" * 100, 10)
    assert clipped.startswith("字" * 10) and clipped.endswith("[summary clipped to fit]")


def test_summary_request_fits_the_window_and_asks_for_the_right_things():
    provider = RecordingProvider(MockProvider(context_window=600))
    transcript = "\n".join(f"[user] 第{i}句话，内容比较长一些。" for i in range(200))
    text = summarise(provider, transcript, window=600, summary_tokens=80, clock=FakeClock())
    assert "User said:" in text
    (request,) = provider.requests
    assert request.purpose == "summary" and request.max_output_tokens == 80
    assert estimate_tokens(request.system) + estimate_tokens(request.messages[0].content) < 600
    for part in ("Goals", "Decisions", "verbatim", "Errors", "Current state", "Lookup hints"):
        assert part in request.system


def test_a_window_too_small_to_summarise_in_is_a_clear_error():
    assert transcript_budget(200, 48) < 32
    with pytest.raises(ContextWindowTooSmallError, match="summarising the conversation"):
        summarise(MockProvider(), "[user] hi", window=200, summary_tokens=48, clock=FakeClock())


def test_a_focus_is_asked_for_and_the_request_still_fits_the_window():
    provider = RecordingProvider(MockProvider(context_window=600))
    transcript = "\n".join(f"[user] 第{i}句话，内容比较长一些。" for i in range(200))
    focus = "the database migration and its rollback plan"
    summarise(provider, transcript, window=600, summary_tokens=80, clock=FakeClock(), focus=focus)
    (request,) = provider.requests
    assert request.messages[0].content.endswith(f"Keep above all what matters for: {focus}")
    assert estimate_tokens(request.system) + estimate_tokens(request.messages[0].content) < 600
    assert focus_outro("  ") == focus_outro(None) == "Write the summary now."
