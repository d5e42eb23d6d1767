"""`script:<path>`: replay a JSON list of model responses, in order, one per model call.

For reproducible runs and tests. The file is read and validated when the provider is built, so
a bad file fails before any turn starts, with one line naming the file and the entry. An entry
is a string (a text answer) or an object:

    {"text": "…", "toolCalls": [{"name": "Read", "arguments": {"path": "a.py"}, "id": "c1"}],
     "usage": {"inputTokens": 10, "outputTokens": 3}, "stopReason": "end_turn",
     "delay": 0.5, "error": "transient", "message": "…", "retryAfter": 2}

`arguments` may be a string, to replay malformed JSON. `delay` is slept on the injected clock
before the response. With `error`, the text (if any) streams first and then that error kind is
raised. Every model call takes the next entry, whatever its purpose; each process starts at the
first entry, and running out is an error naming the file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mini_letta.clock import Clock
from mini_letta.conversations.messages import StopReason, ToolCall, Usage
from mini_letta.errors import (
    AuthError,
    BadRequestError,
    ConfigError,
    ContextOverflowError,
    ProviderError,
    QuotaError,
    TransientError,
    UnknownModelError,
    UnreachableError,
)
from mini_letta.llm.base import (
    ModelEvent,
    ModelRequest,
    ModelToolCall,
    Provider,
    StopEvent,
    TextDelta,
    UsageEvent,
)
from mini_letta.llm.handles import ModelHandle
from mini_letta.llm.registry import ProviderOptions
from mini_letta.llm.retry import with_retries
from mini_letta.llm.tokens import estimate_messages_tokens, estimate_tokens
from mini_letta.structs import Struct

SCRIPT_CONTEXT_WINDOW = 128_000
_KEYS = {"text", "toolCalls", "usage", "stopReason", "delay", "error", "message", "retryAfter"}
_STOPS: tuple[StopReason, ...] = ("end_turn", "tool_use", "max_tokens")
_ERRORS: Mapping[str, Callable[[str], ProviderError]] = {
    "transient": TransientError,
    "overflow": ContextOverflowError,
    "auth": AuthError,
    "quota": QuotaError,
    "bad_request": BadRequestError,
    "unknown_model": UnknownModelError,
    "unreachable": lambda message: UnreachableError(message, "script"),
}


class ScriptEntry(Struct, frozen=True):
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    delay: float = 0.0
    error: str | None = None
    message: str = ""
    retry_after: float | None = None


class _EntryError(ValueError):
    pass


def load_script(path: Path) -> tuple[ScriptEntry, ...]:
    """Read and validate a script file; any problem is a ConfigError naming file and entry."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"script {path} not found (script:<path> names a JSON file)") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"script {path} cannot be read ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"script {path} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from exc
    if not isinstance(data, list):
        raise ConfigError(f"script {path} must be a JSON list of responses")
    entries = []
    for number, raw in enumerate(data, start=1):
        try:
            entries.append(_parse_entry(raw, number))
        except _EntryError as exc:
            raise ConfigError(f"script {path}: entry {number}: {exc}") from exc
    return tuple(entries)


def _parse_entry(raw: object, number: int) -> ScriptEntry:
    if isinstance(raw, str):
        return ScriptEntry(text=raw)
    if not isinstance(raw, dict):
        raise _EntryError("must be a string or an object")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise _EntryError(f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(_KEYS))})")
    text = raw.get("text", "")
    if not isinstance(text, str):
        raise _EntryError('"text" must be a string')
    stop = raw.get("stopReason")
    if stop is not None and stop not in _STOPS:
        raise _EntryError(f'"stopReason" must be one of {", ".join(_STOPS)}')
    error = raw.get("error")
    if error is not None and error not in _ERRORS:
        raise _EntryError(f'"error" must be one of {", ".join(_ERRORS)}')
    message = raw.get("message", "")
    if not isinstance(message, str):
        raise _EntryError('"message" must be a string')
    return ScriptEntry(
        text=text,
        tool_calls=_parse_calls(raw.get("toolCalls", []), number),
        usage=_parse_usage(raw.get("usage")),
        stop_reason=stop,
        delay=_number(raw, "delay", 0.0) or 0.0,
        error=error,
        message=message,
        retry_after=_number(raw, "retryAfter", None),
    )


def _parse_calls(raw: object, number: int) -> tuple[ToolCall, ...]:
    if not isinstance(raw, list):
        raise _EntryError('"toolCalls" must be a list')
    calls = []
    for index, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise _EntryError(f'tool call {index} needs a string "name"')
        arguments = item.get("arguments", {})
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call_id = item.get("id", f"call-{number}-{index}")
        if not isinstance(call_id, str) or not call_id:
            raise _EntryError(f'tool call {index}: "id" must be a non-empty string')
        calls.append(ToolCall(call_id, item["name"], text))
    return tuple(calls)


def _parse_usage(raw: object) -> Usage | None:
    if raw is None:
        return None
    try:
        return Usage.from_json(raw)
    except ValueError as exc:
        raise _EntryError(f'"usage": {exc}') from exc


def _number(raw: Mapping[str, Any], key: str, default: float | None) -> float | None:
    value = raw.get(key, default)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise _EntryError(f'"{key}" must be a number of seconds, zero or more')
    return float(value)


class ScriptProvider:
    def __init__(
        self, handle: str, path: Path, entries: tuple[ScriptEntry, ...], clock: Clock, window: int
    ) -> None:
        self.handle = handle
        self.context_window = window
        self.path = path
        self.entries = entries
        self.position = 0
        self._clock = clock

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        entry = self._next()
        if entry.delay:
            self._clock.sleep(entry.delay)
        step = max(1, len(entry.text) // 3)
        for start in range(0, len(entry.text), step):
            yield TextDelta(entry.text[start : start + step])
        if entry.error is not None:
            message = entry.message or f"scripted {entry.error} error"
            error = _ERRORS[entry.error](f"{self.handle}: {message}")
            if isinstance(error, TransientError):
                error.retry_after = entry.retry_after
            raise error
        for call in entry.tool_calls:
            yield ModelToolCall(call)
        yield UsageEvent(entry.usage or _estimate_usage(request, entry))
        yield StopEvent(entry.stop_reason or ("tool_use" if entry.tool_calls else "end_turn"))

    def _next(self) -> ScriptEntry:
        if self.position >= len(self.entries):
            raise ProviderError(
                f"script {self.path} has no response left (call {self.position + 1}; "
                f"it holds {len(self.entries)})"
            )
        entry = self.entries[self.position]
        self.position += 1
        return entry


def _estimate_usage(request: ModelRequest, entry: ScriptEntry) -> Usage:
    prompt = estimate_tokens(request.system) + estimate_messages_tokens(request.messages)
    output = estimate_tokens(entry.text) + sum(
        estimate_tokens(c.arguments) for c in entry.tool_calls
    )
    return Usage(prompt, output)


def build_script_provider(handle: ModelHandle, options: ProviderOptions) -> Provider:
    path = Path(handle.model).expanduser()
    if not path.is_absolute() and options.cwd is not None:
        path = options.cwd / path
    entries = load_script(path)
    window = options.context_window or SCRIPT_CONTEXT_WINDOW
    provider = ScriptProvider(handle.raw, path, entries, options.clock, window)
    return with_retries(provider, options.clock)
