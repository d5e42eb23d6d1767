from __future__ import annotations

import pytest

from mini_letta.clock import format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.errors import UnknownModelError
from mini_letta.llm.base import ModelRequest, collect
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.mock import MockProvider


@pytest.mark.parametrize(
    ("raw", "provider", "model"),
    [
        ("mock", "mock", "mock"),
        ("script:/tmp/s.json", "script", "/tmp/s.json"),
        ("openai/gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("ollama/qwen2.5:3b", "ollama", "qwen2.5:3b"),
        ("anthropic/claude-sonnet-4", "anthropic", "claude-sonnet-4"),
    ],
    ids=["mock", "script", "openai", "ollama", "anthropic"],
)
def test_parse_handle(raw, provider, model):
    handle = parse_handle(raw)
    assert (handle.provider, handle.model) == (provider, model)


@pytest.mark.parametrize("raw", ["gpt4", "foo/bar", "openai/", "script:", ""])
def test_unknown_handles_list_the_providers(raw):
    with pytest.raises(UnknownModelError, match="openai, anthropic"):
        parse_handle(raw)


def test_mock_answers_and_reports_usage(clock):
    user = Message("msg-1", "user", "帮我看下这个报错", format_timestamp(clock.now()))
    response = collect(MockProvider().stream(ModelRequest(system="sys", messages=(user,))))
    assert response.text == "（mock）我听到了：帮我看下这个报错"
    assert response.stop_reason == "end_turn"
    assert response.usage is not None and response.usage.input_tokens > 0
