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
