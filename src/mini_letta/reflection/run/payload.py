"""The reflection payload: the unreflected slice, normalised, redacted and bounded.

The slice runs from the line after the watermark to the launch line (the log's end at launch),
so messages appended while a reflection runs are not in it. Each message becomes a small JSON
object (tool arguments capped at 300 characters, tool results at 2,500 head+tail with a marker);
secrets are redacted before anything is cut, so a cut can never expose half a key. The whole
list stays within `max_tokens` of the reflection model (each message measured as the compact
JSON line the task shows it as, with the project's token estimate; `reflection/run/budget.py`
says how many a model can take): the oldest part goes first and the rest waits, with
`slice_end_line` moved back to where this slice stops. Building reads only the slice, never
more than the budget past the watermark. Files live in the conversation's `payloads/` and are
removed by the next run (`clear_payloads`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError, ReflectionError
from mini_letta.home import is_json_file, payload_file
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.secrets import redact_secrets
from mini_letta.reflection.state.watermark import (
    ReflectionState,
    Watermark,
    read_reflection_state,
    unreflected_messages,
)
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.structs import Struct

SCHEMA_VERSION = 1
PAYLOAD_TYPE = "reflection_payload"
MANIFEST_TYPE = "multi_transcript_reflection_payload"
TOOL_ARGS_CAP = 300
TOOL_RESULT_CAP = 2_500
DEFAULT_MAX_TOKENS = 25_000
MIN_MAX_TOKENS = 256
REPLAY_USER_TURNS = 50


class Payload(Struct, frozen=True):
    path: Path
    messages: tuple[dict[str, Any], ...]
    start_line: int
    slice_end_line: int  # exclusive: the slice is lines [start_line, slice_end_line)
    launch_line: int  # the launch boundary; slice_end_line < it when the rest waits
    start_message_id: str | None
    end_message_id: str | None
    end: Watermark  # where the watermark goes when this slice is consumed
    steps: int  # assistant messages in the slice
    watermark_lost: bool
    tokens: int  # estimated, as the transcript lines the reflection task shows
    mode: str = "unreflected"  # or "replay": already reflected, shown again for context

    @property
    def truncated(self) -> bool:
        return self.slice_end_line < self.launch_line


def build_payload(
    store: ConversationStore,
    state: ReflectionState,
    *,
    name: str,
    clock: Clock,
    launch_line: int | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> Payload | None:
    """Select, normalise and write the next payload; None when there is nothing to reflect on."""
    if max_tokens < MIN_MAX_TOKENS:
        raise ValueError(f"max_tokens must be at least {MIN_MAX_TOKENS}")
    boundary = store.count() if launch_line is None else launch_line
    unreflected = unreflected_messages(store, state, stop_line=boundary)
    entries, cut = _select(unreflected, max_tokens)
    kept = [e for e in entries if e.data is not None]
    if not kept:
        return None
    last = entries[-1]
    end_line = last.line + 1 if cut else boundary
    messages = tuple(e.data for e in kept if e.data is not None)
    path = payload_file(store.files.payloads_dir, name)
    payload = Payload(
        path=path,
        messages=messages,
        start_line=unreflected.start_line,
        slice_end_line=end_line,
        launch_line=boundary,
        start_message_id=kept[0].message_id,
        end_message_id=kept[-1].message_id,
        end=Watermark(last.line, last.message_id),
        steps=sum(1 for e in entries if e.role == "assistant"),
        watermark_lost=unreflected.watermark_lost,
        tokens=sum(e.size for e in kept),
    )
    save_json(path, _payload_json(store, payload, format_timestamp(clock.now())))
    return payload


def has_unreflected(store: ConversationStore, *, stop_line: int | None = None) -> bool:
    """Whether `build_payload` would find something to reflect on before `stop_line`."""
    state = read_reflection_state(store)
    return any(
        normalise_message(message) is not None
        for _, message in unreflected_messages(store, state, stop_line=stop_line)
    )


def build_replay_payload(
    store: ConversationStore,
    *,
    name: str,
    clock: Clock,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_user_turns: int = REPLAY_USER_TURNS,
) -> Payload | None:
    """The latest turns of an already reflected conversation (mode `replay`), newest kept.

    Used by multi-conversation runs for deduplication and cross-conversation patterns; a
    replay slice never moves a watermark. Reads backwards only as far as the budget allows.
    """
    picked: list[_Entry] = []
    total, turns = 0, 0
    for line, message in store.iter_reverse():
        data = normalise_message(message)
        size = _entry_size(data) if data is not None else 0
        if data is not None and total + size > max_tokens:
            break
        picked.append(_Entry(line, message.id, message.role, data, size))
        total += size
        if message.role == "user":
            turns += 1
            if turns >= max_user_turns:
                break
    while picked and picked[-1].role != "user":  # start the replay at a user message
        picked.pop()
    picked.reverse()
    kept = [e for e in picked if e.data is not None]
    if not kept:
        return None
    messages = tuple(e.data for e in kept if e.data is not None)
    end = picked[-1].line + 1
    payload = Payload(
        path=payload_file(store.files.payloads_dir, name),
        messages=messages,
        start_line=picked[0].line,
        slice_end_line=end,
        launch_line=end,
        start_message_id=kept[0].message_id,
        end_message_id=kept[-1].message_id,
        end=Watermark(picked[-1].line, picked[-1].message_id),
        steps=sum(1 for e in picked if e.role == "assistant"),
        watermark_lost=False,
        tokens=sum(e.size for e in kept),
        mode="replay",
    )
    save_json(payload.path, _payload_json(store, payload, format_timestamp(clock.now())))
    return payload


def save_manifest(
    path: Path,
    *,
    agent_id: str,
    run_id: str,
    created_at: str,
    instruction: str | None,
    slices: list[tuple[str, Payload]],
) -> None:
    """The manifest of a multi-conversation run: one entry per (conversation id, payload)."""
    data: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "type": MANIFEST_TYPE,
        "agentId": agent_id,
        "runId": run_id,
        "createdAt": created_at,
        "transcripts": [
            {
                "conversationId": conversation_id,
                "mode": payload.mode,
                "payloadPath": str(payload.path),
                "startMessageId": payload.start_message_id,
                "endMessageId": payload.end_message_id,
                "startLine": payload.start_line,
                "endSnapshotLine": payload.slice_end_line,
            }
            for conversation_id, payload in slices
        ],
    }
    if instruction and instruction.strip():
        data["userInstruction"] = instruction.strip()
    save_json(path, data)


def normalise_message(message: Message) -> dict[str, Any] | None:
    """The payload form of one message, or None for what reflection should not see."""
    if message.role == "summary":
        return None  # a summary restates messages that are in the log themselves
    content = redact_secrets(message.content)
    if message.role == "tool":
        data: dict[str, Any] = {
            "role": "tool",
            "toolCallId": message.tool_call_id,
            "name": message.name,
            "content": truncate_middle(content, TOOL_RESULT_CAP),
        }
        if message.is_error:
            data["isError"] = True
        return data
    if message.role == "assistant" and not content.strip() and not message.tool_calls:
        return None
    data = {
        "id": message.id,  # what an edit cites as its evidence
        "role": message.role,
        "content": content,
        "createdAt": message.created_at,
    }
    if message.tool_calls:
        data["toolCalls"] = [
            {
                "id": call.id,
                "name": call.name,
                "arguments": truncate_middle(redact_arguments(call.arguments), TOOL_ARGS_CAP),
            }
            for call in message.tool_calls
        ]
    return data


def truncate_middle(text: str, cap: int) -> str:
    """Exactly `cap` characters when longer: head, a marker saying how much was cut, tail."""
    if len(text) <= cap:
        return text
    cut = len(text) - cap
    while True:  # the marker's digits depend on the cut; this settles within a few rounds
        marker = f"\n… [truncated, {cut} more chars]\n"
        keep = cap - len(marker)
        if keep < 0:
            return text[:cap]
        if len(text) - keep == cut:
            break
        cut = len(text) - keep
    head, tail = keep - keep // 2, keep // 2
    return text[:head] + marker + (text[len(text) - tail :] if tail else "")


def load_payload(path: Path) -> dict[str, Any]:
    """A payload file as written; a missing or damaged one is a ReflectionError naming it."""
    try:
        data = load_json(path)
    except CorruptFileError as exc:
        raise ReflectionError(f"payload {path} is unreadable ({exc.detail})") from exc
    if data is None:
        raise ReflectionError(f"payload {path} no longer exists (it was removed during the run)")
    if data.get("type") != PAYLOAD_TYPE or not isinstance(data.get("messages"), list):
        raise ReflectionError(f"payload {path} is not a reflection payload")
    return data


def clear_payloads(store: ConversationStore) -> int:
    """Remove the payloads of earlier runs; call only while holding the agent's lease."""
    folder = store.files.payloads_dir
    removed = 0
    if not folder.is_dir():
        return 0
    for entry in folder.iterdir():
        if is_json_file(entry) or entry.name.endswith(".tmp"):
            try:
                os.unlink(entry)
                removed += 1
            except FileNotFoundError:
                pass
    return removed


class _Entry(Struct, frozen=True):
    line: int
    message_id: str
    role: str
    data: dict[str, Any] | None
    size: int


def _select(
    unreflected: Iterable[tuple[int, Message]], max_tokens: int
) -> tuple[list[_Entry], bool]:
    """The oldest messages that fit, and whether the budget cut the slice short.

    A first message too big on its own is shrunk to fit (with a marker saying how much was
    cut) rather than blocking forever.
    """
    entries: list[_Entry] = []
    total = 0
    over = False
    for line, message in unreflected:
        data = normalise_message(message)
        size = _entry_size(data) if data is not None else 0
        if data is not None and total + size > max_tokens:
            if any(e.data is not None for e in entries):
                over = True
                break
            data = _shrink(data, max_tokens - total)
            size = _entry_size(data)
            entries.append(_Entry(line, message.id, message.role, data, size))
            over = True
            break
        entries.append(_Entry(line, message.id, message.role, data, size))
        total += size
    if over:
        entries = _cut_at_turn(entries)
    return entries, over


def _cut_at_turn(entries: list[_Entry]) -> list[_Entry]:
    """End a budget-cut slice before its last user message, so the next one starts a turn."""
    for index in range(len(entries) - 1, 0, -1):
        if entries[index].role == "user" and any(e.data is not None for e in entries[:index]):
            return entries[:index]
    return entries


def _shrink(data: dict[str, Any], room: int) -> dict[str, Any]:
    """`data` with its content cut in the middle until its line fits `room` tokens."""
    empty = {**data, "content": ""}
    calls = list(empty.get("toolCalls") or [])
    while calls and _entry_size(empty) > room:
        calls.pop()
        empty = {**empty, "toolCalls": calls, "toolCallsOmitted": True}
    content = str(data.get("content") or "")
    keep = min(len(content), 4 * room)  # a token is at most four characters
    while keep > 0:
        shrunk = {**empty, "content": truncate_middle(content, keep)}
        excess = _entry_size(shrunk) - room
        if excess <= 0:
            return shrunk
        keep -= excess  # at least one character per token over
    return empty


def _entry_size(data: dict[str, Any]) -> int:
    """Tokens of the message's line in the task: compact JSON and its line break."""
    return estimate_tokens(json.dumps(data, ensure_ascii=False, separators=(",", ":"))) + 1


def _payload_json(store: ConversationStore, payload: Payload, created_at: str) -> dict[str, Any]:
    return {
        "schemaVersion": SCHEMA_VERSION,
        "type": PAYLOAD_TYPE,
        "agentId": store.agent_id,
        "conversationId": store.conversation_id,
        "createdAt": created_at,
        "mode": payload.mode,
        "startLine": payload.start_line,
        "endSnapshotLine": payload.slice_end_line,
        "startMessageId": payload.start_message_id,
        "endMessageId": payload.end_message_id,
        "watermarkLost": payload.watermark_lost,
        "truncated": payload.truncated,
        "messages": list(payload.messages),
    }


def redact_arguments(arguments: str) -> str:
    """A tool call's JSON arguments with credentials redacted inside each string value, where
    JSON escapes the quotes around a value, which hides it from a scan of the raw text."""
    redacted = redact_secrets(arguments)
    try:
        parsed = json.loads(redacted)
    except (ValueError, RecursionError):
        return redacted
    cleaned = _redact_values(parsed)
    return redacted if cleaned == parsed else json.dumps(cleaned, ensure_ascii=False)


def _redact_values(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return redact_secrets(value)
    if depth > 50:
        return value
    if isinstance(value, list):
        return [_redact_values(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _redact_values(item, depth + 1) for key, item in value.items()}
    return value
