"""`anthropic/<model>` through the official `anthropic` SDK (Messages API with tool use).

Chat turns stream the raw event sequence (message_start, content blocks with text, thinking and
tool-input deltas, message_delta, message_stop); other purposes use one non-streamed call.
Our history maps onto alternating user/assistant turns: tool results travel as `tool_result`
blocks in a user turn. The SDK is imported when the provider is built; its retries are off and
every SDK or transport exception is mapped to our kinds here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from mini_letta.conversations.messages import Message, StopReason, ToolCall, Usage
from mini_letta.errors import MissingKeyError, ProviderError
from mini_letta.llm.base import (
    ModelEvent,
    ModelRequest,
    ModelToolCall,
    Provider,
    ReasoningDelta,
    StopEvent,
    TextDelta,
    UsageEvent,
)
from mini_letta.llm.catalog import (
    ANTHROPIC_BASE_URL,
    NO_KEY,
    anthropic_max_output,
    context_window_for,
    normalize_base_url,
)
from mini_letta.llm.failures import Failure, classify, connection_failure, one_line, transport_of
from mini_letta.llm.handles import ModelHandle
from mini_letta.llm.history import arguments_object, normalize_history
from mini_letta.llm.registry import CacheTtl, ProviderOptions
from mini_letta.llm.retry import with_retries
from mini_letta.llm.sdk_provider import SdkProvider
from mini_letta.structs import Struct, replace

KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_CACHE_TTL: CacheTtl = "5m"  # the API's default; "1h" costs more to write, lasts longer
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_STOPS: Mapping[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
}


class AnthropicConfig(Struct, frozen=True):
    handle: str
    model: str
    base_url: str
    api_key: str
    context_window: int
    max_output_tokens: int
    temperature: float | None = None
    cache_ttl: CacheTtl = DEFAULT_CACHE_TTL


def resolve_anthropic_config(handle: ModelHandle, options: ProviderOptions) -> AnthropicConfig:
    """Base URL: --base-url / agent.json, else ANTHROPIC_BASE_URL, else api.anthropic.com."""
    env = options.environ
    raw_url = options.base_url or env.get("ANTHROPIC_BASE_URL", "").strip() or ANTHROPIC_BASE_URL
    base_url = normalize_base_url(raw_url, f"the base URL for {handle.raw}")
    key = env.get(KEY_ENV, "").strip()
    if not key:
        if base_url == ANTHROPIC_BASE_URL:
            raise MissingKeyError(KEY_ENV, handle.raw)
        key = NO_KEY
    return AnthropicConfig(
        handle=handle.raw,
        model=handle.model,
        base_url=base_url,
        api_key=key,
        context_window=options.context_window or context_window_for("anthropic", handle.model),
        max_output_tokens=options.max_output_tokens or anthropic_max_output(handle.model),
        temperature=options.temperature,
        cache_ttl=options.cache_ttl or DEFAULT_CACHE_TTL,
    )


def build_anthropic_request(config: AnthropicConfig, request: ModelRequest) -> dict[str, Any]:
    """The Messages body (without `stream`), a pure function of config and request.

    Prompt caching: the API caches the request up to each `cache_control` breakpoint (at most
    four), in the order tools, system, messages. One goes on the system prompt (tools and
    system: the long-lived prefix), one on the last turn (the whole request, which the next
    step or turn extends) and one on the turn before it (where the previous request ended, so
    a step that added many blocks still finds the previous entry).
    """
    marker: dict[str, Any] = {"type": "ephemeral"}
    if config.cache_ttl != DEFAULT_CACHE_TTL:
        marker["ttl"] = config.cache_ttl
    declared = {tool.name for tool in request.tools}
    messages = _wire_messages(normalize_history(request.messages, declared))
    body: dict[str, Any] = {
        "model": config.model,
        "max_tokens": request.max_output_tokens or config.max_output_tokens,
        "messages": messages,
    }
    if request.tools:
        body["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": marker}]
    elif request.tools:
        body["tools"][-1]["cache_control"] = marker
    users = [turn for turn in messages if turn["role"] == "user"]
    for turn in users[-2:]:
        turn["content"][-1]["cache_control"] = marker
    temperature = request.temperature if request.temperature is not None else config.temperature
    if temperature is not None:
        body["temperature"] = temperature
    return body


def _wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Consecutive messages of one side merge into one turn, as the API wants alternation."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": _safe_id(message.tool_call_id or ""),
                "content": message.content or "(no output)",
                "is_error": message.is_error,
            }
        ]
    blocks: list[dict[str, Any]] = []
    if message.content.strip():
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": _safe_id(call.id),
                "name": call.name,
                "input": arguments_object(call.arguments),
            }
        )
    return blocks


def _safe_id(call_id: str) -> str:
    """Anthropic ids allow [A-Za-z0-9_-]; ids from other providers are made to fit, stably."""
    return _ID_UNSAFE.sub("_", call_id) or "call"


class AnthropicProvider(SdkProvider):
    base_error = "AnthropicError"
    sdk_module = "anthropic"
    client_class = "Anthropic"

    def __init__(self, config: AnthropicConfig) -> None:
        super().__init__(config.handle, config.context_window)
        self.config = config

    def _endpoint(self) -> tuple[str | None, str | None]:
        return self.config.api_key, self.config.base_url

    def _build(self, request: ModelRequest) -> dict[str, Any]:
        return build_anthropic_request(self.config, request)

    def _stream(self, body: dict[str, Any]) -> Iterator[ModelEvent]:
        usage = Usage()
        stop: str | None = None
        tools: dict[int, list[str]] = {}  # block index -> [id, name, json fragments...]
        saw_call = False
        create = self._client.messages.create
        with create(**self._arguments(body, stream=True)) as events:
            for event in events:
                kind = event.type
                if kind == "message_start":
                    usage = _usage(event.message.usage)
                elif kind == "content_block_start" and event.content_block.type == "tool_use":
                    block = event.content_block
                    tools[event.index] = [block.id, block.name]
                elif kind == "content_block_delta":
                    delta = event.delta
                    if delta.type == "text_delta" and delta.text:
                        yield TextDelta(delta.text)
                    elif delta.type == "thinking_delta" and delta.thinking:
                        yield ReasoningDelta(delta.thinking)
                    elif delta.type == "input_json_delta" and event.index in tools:
                        tools[event.index].append(delta.partial_json)
                elif kind == "content_block_stop" and event.index in tools:
                    call_id, name, *fragments = tools.pop(event.index)
                    saw_call = True
                    yield ModelToolCall(ToolCall(call_id, name, "".join(fragments) or "{}"))
                elif kind == "message_delta":
                    stop = event.delta.stop_reason or stop
                    if event.usage is not None and event.usage.output_tokens is not None:
                        usage = replace(usage, output_tokens=event.usage.output_tokens)
        yield UsageEvent(usage)
        yield StopEvent(_stop_reason(stop, saw_call))

    def _complete(self, body: dict[str, Any]) -> Iterator[ModelEvent]:
        message = self._client.messages.create(**self._arguments(body))
        saw_call = False
        for block in message.content:
            if block.type == "text" and block.text:
                yield TextDelta(block.text)
            elif block.type == "tool_use":
                saw_call = True
                yield ModelToolCall(ToolCall(block.id, block.name, json.dumps(block.input)))
        yield UsageEvent(_usage(message.usage))
        yield StopEvent(_stop_reason(message.stop_reason, saw_call))

    def _map_error(self, exc: BaseException) -> ProviderError:
        sdk, config = self._sdk, self.config
        if isinstance(exc, sdk.APIStatusError):
            error = _error_body(exc.body)
            in_stream = exc.status_code == 200  # an `error` event inside a 200 stream
            return classify(
                Failure(
                    handle=config.handle,
                    url=config.base_url,
                    status=0 if in_stream else exc.status_code,
                    message=str(error.get("message") or exc.message),
                    error_type=str(error.get("type") or ""),
                    headers=dict(exc.response.headers),
                    key_env=KEY_ENV,
                )
            )
        if isinstance(exc, sdk.APIConnectionError | transport_of(sdk).HTTPError):
            return connection_failure(config.handle, config.base_url, exc)
        return ProviderError(f"{config.handle}: {one_line(str(exc)) or type(exc).__name__}")


def _usage(raw: Any) -> Usage:
    """Input counts the cached parts too: together they are what the context holds."""
    if raw is None:
        return Usage()
    read = getattr(raw, "cache_read_input_tokens", None) or 0
    written = getattr(raw, "cache_creation_input_tokens", None) or 0
    prompt = (getattr(raw, "input_tokens", None) or 0) + read + written
    return Usage(prompt, getattr(raw, "output_tokens", None) or 0, read, written)


def _stop_reason(stop: str | None, saw_call: bool) -> StopReason:
    reason = _STOPS.get(stop or "end_turn", "end_turn")
    if saw_call and reason != "max_tokens":
        return "tool_use"
    return reason


def _error_body(body: object) -> dict[str, Any]:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return error
    return {}


def build_anthropic_provider(handle: ModelHandle, options: ProviderOptions) -> Provider:
    config = resolve_anthropic_config(handle, options)
    return with_retries(AnthropicProvider(config), options.clock)
