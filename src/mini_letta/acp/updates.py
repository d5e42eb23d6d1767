"""How a turn, and a conversation's history, read as ACP session updates.

A streamed answer is `agent_message_chunk`s; a tool call is a `tool_call` (its kind, a title,
the files it touches, `pending`) and then a `tool_call_update` with its result (`completed` or
`failed`); the model's reasoning, when it sends any, and a compaction are told as
`agent_thought_chunk`s (reasoning is not logged, so a replay has none). Replaying a conversation for
`session/load` sends the same updates from the log (user messages as `user_message_chunk`).
The SDK is imported inside each builder: this module is only loaded by `mini-letta acp`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.loop.events import (
    AssistantDelta,
    CompactionEvent,
    ThoughtDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
)
from mini_letta.structs import Struct
from mini_letta.tools.base import describe_call

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate
    from acp.schema import ToolCallLocation

    from mini_letta.conversations.store import ConversationStore

AcpToolKind = Literal["read", "edit", "search", "execute", "think", "fetch", "other"]

# Our tools by name; a tool not named here (a new one, a skill's) reads as `other`.
TOOL_KINDS: dict[str, AcpToolKind] = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "Bash": "execute",
    "Grep": "search",
    "Glob": "search",
    "memory": "edit",
    "conversation_search": "search",
    "memory_search": "search",
    "Skill": "read",
}


class ToolView(Struct, frozen=True):
    """What an editor shows of a call before it runs."""

    call_id: str
    kind: AcpToolKind
    title: str
    paths: tuple[str, ...]  # absolute
    arguments: dict[str, Any] | None  # None: not a JSON object (shown as the model wrote it)
    change: tuple[str | None, str] | None = None  # Write/Edit: (old text, new text) to show

    def content(self) -> list[Any]:
        """A Write's or Edit's change as a diff the editor shows (from the arguments alone:
        nothing is read to show it)."""
        if self.change is None or not self.paths:
            return []
        from acp import tool_diff_content

        old, new = self.change
        return [tool_diff_content(self.paths[0], new, old)]


def view_tool_call(call: ToolCall, cwd: Path, memory_dir: Path | None) -> ToolView:
    """Kind, title and the files a call names: a path argument, resolved as the tool does (a
    memory path against memory, anything else against the working directory)."""
    arguments: dict[str, Any] | None
    try:
        parsed = json.loads(call.arguments) if call.arguments.strip() else {}
        arguments = parsed if isinstance(parsed, dict) else None
    except json.JSONDecodeError:
        arguments = None
    title = describe_call(call.name, arguments) if arguments is not None else call.name
    paths: tuple[str, ...] = ()
    path = arguments.get("path") if arguments is not None else None
    if isinstance(path, str) and path and "\x00" not in path:
        base = memory_dir if call.name == "memory" and memory_dir is not None else cwd
        paths = (str(base / path),)
    kind = TOOL_KINDS.get(call.name, "other")
    change = _change(arguments) if kind == "edit" else None
    return ToolView(call.id, kind, title, paths, arguments, change)


def _change(arguments: dict[str, Any] | None) -> tuple[str | None, str] | None:
    if arguments is None:
        return None
    old, new, content = (arguments.get(key) for key in ("old_string", "new_string", "content"))
    if isinstance(old, str) and isinstance(new, str):
        return old, new
    if isinstance(content, str):
        return None, content
    return None


def _locations(view: ToolView) -> list[ToolCallLocation]:
    from acp.schema import ToolCallLocation

    return [ToolCallLocation(path=path) for path in view.paths]


def tool_call_start(view: ToolView) -> SessionUpdate:
    from acp import start_tool_call

    return start_tool_call(
        view.call_id,
        view.title,
        kind=view.kind,
        status="pending",
        content=view.content(),
        locations=_locations(view),
        raw_input=view.arguments,
    )


def tool_call_done(call_id: str, content: str, is_error: bool) -> SessionUpdate:
    from acp import text_block, tool_content, update_tool_call

    return update_tool_call(
        call_id,
        status="failed" if is_error else "completed",
        content=[tool_content(text_block(content))],
        raw_output=content,
    )


def agent_text(text: str) -> SessionUpdate:
    from acp import update_agent_message_text

    return update_agent_message_text(text)


def thought_text(text: str) -> SessionUpdate:
    from acp import update_agent_thought_text

    return update_agent_thought_text(text)


def updates_for_event(event: TurnEvent, cwd: Path, memory_dir: Path | None) -> list[SessionUpdate]:
    """The updates one turn event sends (most send none: the log's messages were streamed)."""
    if isinstance(event, AssistantDelta):
        return [agent_text(event.text)] if event.text else []
    if isinstance(event, ThoughtDelta):
        return [thought_text(event.text)] if event.text else []
    if isinstance(event, ToolCallEvent):
        return [tool_call_start(view_tool_call(event.call, cwd, memory_dir))]
    if isinstance(event, ToolResultEvent):
        return [tool_call_done(event.call.id, event.result.content, event.result.is_error)]
    if isinstance(event, CompactionEvent):
        return [
            thought_text(
                f"Compacted {event.messages_compacted} messages to stay in the context window "
                f"({event.tokens_before} → {event.tokens_after} tokens)."
            )
        ]
    return []


def replay_updates(
    store: ConversationStore, cwd: Path, memory_dir: Path | None
) -> Iterator[SessionUpdate]:
    """The whole conversation as updates, oldest first (summaries of compacted messages are
    the model's notes, not something said, and are left out)."""
    from acp import update_user_message_text

    for _line, message in store.iter_from(0):
        yield from _message_updates(message, cwd, memory_dir, update_user_message_text)


def _message_updates(
    message: Message, cwd: Path, memory_dir: Path | None, user: Any
) -> Iterator[SessionUpdate]:
    if message.role == "user" and message.content:
        yield user(message.content)
    elif message.role == "assistant":
        if message.content:
            yield agent_text(message.content)
        for call in message.tool_calls:
            yield tool_call_start(view_tool_call(call, cwd, memory_dir))
    elif message.role == "tool" and message.tool_call_id:
        yield tool_call_done(message.tool_call_id, message.content, message.is_error)
