"""The conversation as a provider may send it: every tool call answered, nothing dangling.

APIs reject a tool call without its result, a result without its call, and an empty assistant
message; an interrupted turn or a crash can leave any of these in the log. `normalize_history`
repairs the in-memory copy (never the log): orphan results go, missing results are filled with
a short note, empty assistant messages and trailing assistant text go, and a `summary` message
becomes a user message that says what it is. The result has only user, assistant and tool roles,
and one message per role turn: consecutive user (or assistant) messages — the harness's reminder
before the user's text, a summary before the first kept message — are merged into one, because
strict chat templates (vLLM, llama.cpp) reject two in a row. Every provider request, whatever
its purpose (chat, reflection, merge review, summary), is built from this.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.structs import replace

MISSING_RESULT = "No result was recorded for this call (the turn was interrupted)."
SUMMARY_PREFIX = "Summary of the earlier conversation:\n"


def normalize_history(
    messages: Iterable[Message], declared: Collection[str] | None = None
) -> list[Message]:
    """The history to send (see the module doc). With `declared` (the request's tool names), a
    call to a tool the request does not declare, or with arguments that are not a JSON object,
    is not replayed as a call: it becomes a line of its assistant message, with its result."""
    listed = list(messages)
    if declared is not None:
        listed = _unreplayable_as_text(listed, set(declared))
    out: list[Message] = []
    answered: set[str] = set()
    open_calls: dict[str, Message] = {}
    for message in listed:
        if message.role == "tool":
            if message.tool_call_id in open_calls and message.tool_call_id not in answered:
                answered.add(message.tool_call_id)
                out.append(message)
            continue
        _close(out, open_calls, answered)
        if message.role == "summary":
            out.append(replace(message, role="user", content=SUMMARY_PREFIX + message.content))
        elif message.role == "assistant":
            if not message.content.strip() and not message.tool_calls:
                continue
            out.append(message)
            open_calls = {call.id: message for call in message.tool_calls}
        else:
            out.append(message)
    _close(out, open_calls, answered)
    while out and out[-1].role == "assistant" and not out[-1].tool_calls:
        out.pop()
    return _one_per_role_turn(out)


def _unreplayable_as_text(messages: list[Message], declared: set[str]) -> list[Message]:
    """Calls an API would reject (an undeclared tool name, arguments that are not an object)
    as text: `(call NAME ARGS: RESULT)` in the assistant message; their results are dropped."""
    results = {m.tool_call_id: m.content for m in messages if m.role == "tool" and m.tool_call_id}
    dropped: set[str] = set()
    out: list[Message] = []
    for message in messages:
        if message.role == "tool" and message.tool_call_id in dropped:
            continue
        if message.role != "assistant" or not message.tool_calls:
            out.append(message)
            continue
        bad = [c for c in message.tool_calls if c.name not in declared or not _is_object(c)]
        if not bad:
            out.append(message)
            continue
        dropped.update(call.id for call in bad)
        notes = [
            f"(called {call.name} with {' '.join(call.arguments.split())[:200]!r}: "
            f"{' '.join(results.get(call.id, MISSING_RESULT).split())[:300]})"
            for call in bad
        ]
        content = "\n".join(part for part in (message.content, *notes) if part.strip())
        kept = tuple(call for call in message.tool_calls if call not in bad)
        out.append(replace(message, content=content, tool_calls=kept))
    return out


def _is_object(call: ToolCall) -> bool:
    try:
        value = json.loads(call.arguments) if call.arguments.strip() else {}
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict)


def _one_per_role_turn(messages: list[Message]) -> list[Message]:
    merged: list[Message] = []
    for message in messages:
        last = merged[-1] if merged else None
        if last is None or last.role != message.role or message.role == "tool":
            merged.append(message)
            continue
        parts = [text for text in (last.content, message.content) if text.strip()]
        merged[-1] = replace(
            last,
            content="\n\n".join(parts),
            tool_calls=last.tool_calls + message.tool_calls,
        )
    return merged


def _close(
    out: list[Message],
    open_calls: dict[str, Message],
    answered: set[str],
) -> None:
    """Give every still-unanswered call of the last assistant message a stub result."""
    for call_id, owner in open_calls.items():
        if call_id not in answered:
            name = next(call.name for call in owner.tool_calls if call.id == call_id)
            out.append(
                Message(
                    id=owner.id + "-missing",
                    role="tool",
                    content=MISSING_RESULT,
                    created_at=owner.created_at,
                    tool_call_id=call_id,
                    name=name,
                    is_error=True,
                )
            )
    open_calls.clear()
    answered.clear()


def arguments_object(raw: str) -> dict[str, object]:
    """A call's arguments as an object for the wire; malformed JSON is sent back as `{}`.

    The tool result already told the model its arguments were malformed; resending the broken
    text would make some servers reject the whole request.
    """
    try:
        value = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
