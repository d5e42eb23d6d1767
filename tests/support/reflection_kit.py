"""Helpers for reflection tests: conversations with messages, and plain-git memory repos."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mini_letta.clock import format_timestamp
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.conversations.registry import create_conversation
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.ids import new_message_id

AGENT = "agent-00000000-0000-4000-8000-000000000001"


def new_store(home: Home, clock, agent_id: str = AGENT) -> ConversationStore:
    return create_conversation(home, agent_id, clock)


def message(clock, role: str, content: str, **fields) -> Message:
    clock.advance(1)
    now = clock.now()
    return Message(
        id=new_message_id(now),
        role=role,
        content=content,
        created_at=format_timestamp(now),
        **fields,
    )


def add_turn(
    store: ConversationStore, clock, user: str, answer: str | None = None, tools: int = 0
) -> list[Message]:
    """A user message, `tools` tool-call steps with results, then the answer."""
    batch = [message(clock, "user", user)]
    for n in range(tools):
        call = ToolCall(f"call-{batch[0].id}-{n}", "Read", '{"path": "x.py"}')
        batch.append(message(clock, "assistant", "", tool_calls=(call,)))
        batch.append(message(clock, "tool", "file contents", tool_call_id=call.id, name="Read"))
    batch.append(message(clock, "assistant", answer if answer is not None else f"ok: {user}"))
    store.append(batch)
    return batch


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


class ScriptedProvider:
    """A test Provider: each model call takes the next step of the script.

    A step is a ModelResponse, an exception to raise, or a callable (request -> either).
    When the script runs out, the provider ends its turn with a short text.
    """

    def __init__(self, steps=(), handle: str = "test/scripted", context_window: int = 8192):
        self.steps = list(steps)
        self.handle = handle
        self.context_window = context_window
        self.requests = []

    def stream(self, request):
        from mini_letta.llm.base import StopEvent, TextDelta, ToolCallEvent

        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else respond("done")
        if callable(step):
            step = step(request)
        if isinstance(step, BaseException):
            raise step
        if step.text:
            yield TextDelta(step.text)
        for call in step.tool_calls:
            yield ToolCallEvent(call)
        yield StopEvent(step.stop_reason)


class SideEffectProvider:
    """Wraps a provider and runs `effects[n]()` just before its n-th call (1-based)."""

    def __init__(self, inner, effects: dict):
        self.inner = inner
        self.effects = effects
        self.handle = inner.handle
        self.context_window = inner.context_window
        self.calls = 0

    def stream(self, request):
        self.calls += 1
        effect = self.effects.get(self.calls)
        if effect is not None:
            effect()
        return self.inner.stream(request)


def respond(text: str = "", *calls):
    from mini_letta.llm.base import ModelResponse

    return ModelResponse(text, tuple(calls), None, "tool_use" if calls else "end_turn")


def tool_call(name: str, n: int = 1, **arguments) -> ToolCall:
    import json

    return ToolCall(f"call-{name}-{n}", name, json.dumps(arguments, ensure_ascii=False))
