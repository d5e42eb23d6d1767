"""The mock model's "remember" behaviour: a real `memory` tool call, then a text answer.

"记住…", "请记住…" or "remember that …" makes the mock call the memory tool to add the line to
system/human.md (the memory layer drops the new memory's placeholder line, as for any model). On
the next step it sees the tool result in the request and answers, saying so if the tool failed.
It acts only through the tool call, and only when the tool is offered, like any model.
"""

from __future__ import annotations

import json
import re

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.llm.base import ModelRequest, ModelResponse
from mini_letta.memory.layout import HUMAN_FILE

REMEMBERED_PREFIX = "（mock）我记住了："
FAILED_PREFIX = "（mock）没能记住："

_PATTERNS = (
    re.compile(r"^\s*(?:请你?|帮我|麻烦你?)?记住(?:了)?[\s：:，,、]*(?P<fact>.+)$", re.S),
    re.compile(r"^\s*(?:please\s+)?remember(?:\s+that)?[\s:,]+(?P<fact>.+)$", re.S | re.I),
)


def remembered_fact(text: str) -> str | None:
    """The thing to remember in a user message, or None when it does not ask for that."""
    for pattern in _PATTERNS:
        match = pattern.match(text)
        if match:
            fact = " ".join(match.group("fact").split()).rstrip("。.!！ ")
            return fact or None
    return None


def respond_remember(request: ModelRequest) -> ModelResponse | None:
    """The mock's step for a remember request, or None when this is not one."""
    if not any(tool.name == "memory" for tool in request.tools):
        return None  # like any model, it only calls tools it is offered
    user, after = _last_user_turn(request.messages)
    if user is None:
        return None
    fact = remembered_fact(user.content)
    if fact is None:
        return None
    result = next((m for m in reversed(after) if m.role == "tool" and m.name == "memory"), None)
    if result is not None:
        if result.is_error:
            first = result.content.splitlines()[0] if result.content else "unknown error"
            return ModelResponse(FAILED_PREFIX + first, (), None, "end_turn")
        return ModelResponse(REMEMBERED_PREFIX + fact, (), None, "end_turn")
    if any(m.role == "assistant" and m.tool_calls for m in after):
        return None  # it already tried and the result is gone; do not loop
    return ModelResponse("", (_memory_call(request, fact),), None, "tool_use")


def _memory_call(request: ModelRequest, fact: str) -> ToolCall:
    args: dict[str, object] = {"command": "insert", "path": HUMAN_FILE, "content": f"- {fact}"}
    args["reason"] = f"Remember: {fact}"[:120]
    arguments = json.dumps(args, ensure_ascii=False)
    return ToolCall(f"call-mock-memory-{len(request.messages)}", "memory", arguments)


def _last_user_turn(messages: tuple[Message, ...]) -> tuple[Message | None, list[Message]]:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return messages[index], list(messages[index + 1 :])
    return None, []
