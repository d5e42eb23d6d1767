"""The mock's remember flow, step by step: the tool call it makes and the answers it gives."""

from __future__ import annotations

import json

import pytest

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.llm.base import ModelRequest, ToolSpec
from mini_letta.llm.mock import respond_chat
from mini_letta.llm.mock_memory import remembered_fact
from mini_letta.memory.layout import DEFAULT_HUMAN


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("记住我喜欢茶", "我喜欢茶"),
        ("请记住：周五发布。", "周五发布"),
        ("帮我记住 用 uv 管理依赖", "用 uv 管理依赖"),
        ("remember that I prefer tabs", "I prefer tabs"),
        ("Please remember: deploys are on Fridays!", "deploys are on Fridays"),
        ("记住", None),
        ("你还记住了什么？", None),
        ("I remember that day", None),
        ("hello", None),
    ],
    ids=["ji-zhu", "qing-ji-zhu", "bang-wo", "remember-that", "please-remember", "nothing",
         "question", "not-a-request", "plain"],
)  # fmt: skip
def test_mock_remembered_fact(text, fact):
    assert remembered_fact(text) == fact


MEMORY = (ToolSpec("memory", "memory tool", {"type": "object"}),)


def _msg(role, content="", **fields):
    return Message(id=f"msg-{role}", role=role, content=content, created_at="t", **fields)


def test_mock_remember_inserts_even_while_the_prompt_shows_the_placeholder():
    """The system prompt is pinned, so it may show the placeholder after the file dropped it."""
    for system in (f"... {DEFAULT_HUMAN} ...", "- A"):
        request = ModelRequest(system, (_msg("user", "记住 B"),), MEMORY)
        (call,) = respond_chat(request).tool_calls
        assert call.name == "memory"
        expected = {"command": "insert", "path": "system/human.md", "content": "- B",
                    "reason": "Remember: B"}  # fmt: skip
        assert json.loads(call.arguments) == expected


@pytest.mark.parametrize(
    ("is_error", "content", "answer"),
    [(False, "inserted (committed abc1234)", "（mock）我记住了：A"),
     (True, "SecretDetectedError: no\nmore", "（mock）没能记住：SecretDetectedError: no")],
    ids=["ok", "failed"],
)  # fmt: skip
def test_mock_remember_answers_after_the_tool_result(is_error, content, answer):
    call = ToolCall("c1", "memory", "{}")
    messages = (
        _msg("user", "记住 A"),
        _msg("assistant", tool_calls=(call,)),
        _msg("tool", content, tool_call_id="c1", name="memory", is_error=is_error),
    )
    response = respond_chat(ModelRequest(system="", messages=messages, tools=MEMORY))
    assert (response.text, response.tool_calls) == (answer, ())


def test_mock_remember_without_the_memory_tool_is_a_plain_answer():
    response = respond_chat(ModelRequest(system="", messages=(_msg("user", "记住 A"),)))
    assert response.text == "（mock）我听到了：记住 A" and not response.tool_calls


def test_mock_plain_answer_is_unchanged():
    response = respond_chat(ModelRequest(system="", messages=(_msg("user", "帮我看下这个报错"),)))
    assert response.text == "（mock）我听到了：帮我看下这个报错" and not response.tool_calls
