"""The embedded `mock` model: deterministic, offline, and on the same loop as a real model.

As the chat model it answers `（mock）我听到了：<user text>`; "记住…" / "remember that …" instead
becomes a `memory` tool call and then `（mock）我记住了：…` (llm/mock_memory.py). Other purposes
(reflection, summary, merge) are answered by the responders registered in `_RESPONDERS`; each
sees the same `ModelRequest` a real model would and may only act through tool calls, so the
mock goes through the same tools and checks as any other model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from mini_letta.conversations.messages import Usage
from mini_letta.llm.base import (
    ModelEvent,
    ModelRequest,
    ModelResponse,
    ModelToolCall,
    Purpose,
    StopEvent,
    TextDelta,
    UsageEvent,
)
from mini_letta.llm.mock_memory import respond_remember
from mini_letta.llm.tokens import estimate_request_tokens, estimate_response_tokens

MOCK_CONTEXT_WINDOW = 8192
CHAT_PREFIX = "（mock）我听到了："

Responder = Callable[[ModelRequest], ModelResponse]


def last_user_text(request: ModelRequest) -> str:
    for message in reversed(request.messages):
        if message.role == "user":
            return message.content
    return ""


def respond_chat(request: ModelRequest) -> ModelResponse:
    remembered = respond_remember(request)  # "记住…": a memory tool call, then an answer
    if remembered is not None:
        return remembered
    return ModelResponse(CHAT_PREFIX + last_user_text(request), (), None, "end_turn")


def _respond_summary(request: ModelRequest) -> ModelResponse:
    from mini_letta.llm.mock_summary import respond_summary

    return respond_summary(request)


def _respond_reflection(request: ModelRequest) -> ModelResponse:
    # Imported on first use: its statement patterns cost more to build than a whole chat turn.
    from mini_letta.llm.mock_reflection import respond_reflection

    return respond_reflection(request)


def _respond_merge(request: ModelRequest) -> ModelResponse:
    from mini_letta.llm.mock_reflection import respond_merge

    return respond_merge(request)


_RESPONDERS: dict[Purpose, Responder] = {
    "chat": respond_chat,
    "summary": _respond_summary,
    "reflection": _respond_reflection,
    "merge": _respond_merge,
}


class MockProvider:
    def __init__(self, handle: str = "mock", context_window: int = MOCK_CONTEXT_WINDOW) -> None:
        self.handle = handle
        self.context_window = context_window

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        responder = _RESPONDERS.get(request.purpose, respond_chat)
        response = responder(request)
        text = response.text
        # A few chunks rather than one, so streaming renderers are exercised by the mock too.
        step = max(1, len(text) // 3)
        for start in range(0, len(text), step):
            yield TextDelta(text[start : start + step])
        for call in response.tool_calls:
            yield ModelToolCall(call)
        yield UsageEvent(response.usage or _usage(request, response))
        yield StopEvent(response.stop_reason)


def _usage(request: ModelRequest, response: ModelResponse) -> Usage:
    """The mock's tokenizer is our estimate, so its usage and the estimate agree exactly."""
    prompt = estimate_request_tokens(request.system, request.messages, request.tools)
    return Usage(prompt, estimate_response_tokens(response.text, response.tool_calls))


def build_mock_provider(handle: object, options: object) -> MockProvider:
    """Registry factory; the mock's window honours an explicit context window."""
    window = getattr(options, "context_window", None)
    return MockProvider(context_window=window or MOCK_CONTEXT_WINDOW)
