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

# Planted credentials, one per kind the scanner knows (all must be found by find_secret).
SECRETS = [
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    "sk_live_51HxYz2AbCdEfGh3IjKlMn4Op",
    "rk_test_4eC39HqLyjWDarjtT1zdp7dc9Z",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "glpat-xY12zW34vU56tS78rQ90",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/a1B2c3D4e5F6g7H8i9J0k1L2",
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "Bearer a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6",
    "postgres://admin:S3cretPassw0rd@db.example.com:5432/app",
    "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "OPENAI_API_KEY=abc123def456ghi789",
    "DATABASE_PASSWORD=hunter2hunter2x9",
    "GITHUB_TOKEN: 9f8e7d6c5b4a3f2e1d0c",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1b2c3\n-----END RSA PRIVATE KEY-----",
]
# The credential inside each planted text: it must never appear anywhere.
_PREFIXED = {
    "Bearer ": "",
    "aws_secret_access_key=": "",
    "OPENAI_API_KEY=": "",
    "DATABASE_PASSWORD=": "",
    "GITHUB_TOKEN: ": "",
}
NEEDLES = [next((s.removeprefix(p) for p in _PREFIXED if s.startswith(p)), s) for s in SECRETS]
NEEDLES = [n if not n.startswith("postgres://") else "S3cretPassw0rd" for n in NEEDLES]
# A key block cut off before its END line: its body must go too, not only its header.
_KEY_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
SECRETS.append(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{_KEY_BODY}\nQyNTUxOQAAACDnY2xv6sZBrFz0")
NEEDLES.append(_KEY_BODY)


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
        from mini_letta.llm.base import ModelToolCall, StopEvent, TextDelta

        self.requests.append(request)
        step = self.steps.pop(0) if self.steps else respond("done")
        if callable(step):
            step = step(request)
        if isinstance(step, BaseException):
            raise step
        if step.text:
            yield TextDelta(step.text)
        for call in step.tool_calls:
            yield ModelToolCall(call)
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
