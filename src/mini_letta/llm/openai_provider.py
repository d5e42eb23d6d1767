"""`openai/<model>` and the local presets, through the official `openai` SDK (Chat Completions).

Chat turns stream (text deltas as they arrive, reasoning deltas when a compatible server sends
them, tool calls assembled from their fragments, usage from the final chunk); other purposes
(summary, reflection) use one non-streamed call. The SDK is imported when the provider is built,
never before; its retries are off (`llm/retry.py` owns the policy) and every SDK or transport
exception is mapped to our kinds at this boundary.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from mini_letta.conversations.messages import Message, StopReason, ToolCall, Usage
from mini_letta.errors import MissingKeyError, ProviderError
from mini_letta.ids import random_hex
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
    LOCAL_BASE_URLS,
    NO_KEY,
    OPENAI_BASE_URL,
    context_window_for,
    normalize_base_url,
    ollama_host_url,
)
from mini_letta.llm.failures import Failure, classify, connection_failure, one_line, transport_of
from mini_letta.llm.handles import ModelHandle
from mini_letta.llm.history import arguments_object, normalize_history
from mini_letta.llm.registry import ProviderOptions
from mini_letta.llm.retry import with_retries
from mini_letta.llm.sdk_provider import SdkProvider
from mini_letta.structs import Struct

_STOPS: Mapping[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


class OpenAIConfig(Struct, frozen=True):
    handle: str
    model: str
    base_url: str
    api_key: str
    key_env: str
    context_window: int
    max_output_tokens: int | None = None
    temperature: float | None = None

    @property
    def is_openai(self) -> bool:
        return self.base_url.rstrip("/") == OPENAI_BASE_URL


def resolve_openai_config(handle: ModelHandle, options: ProviderOptions) -> OpenAIConfig:
    """Base URL: --base-url / agent.json, else OPENAI_BASE_URL (openai/), OLLAMA_HOST
    (ollama/) or the preset's."""
    env = options.environ
    if handle.provider == "openai":
        raw_url = options.base_url or env.get("OPENAI_BASE_URL", "").strip() or OPENAI_BASE_URL
        key_env = "OPENAI_API_KEY"
    else:
        local = ollama_host_url(env) if handle.provider == "ollama" else None
        raw_url = options.base_url or local or LOCAL_BASE_URLS[handle.provider]
        key_env = f"{handle.provider.upper()}_API_KEY"
    # OpenAI-compatible servers listen under /v1; a bare host:port means that.
    base_url = normalize_base_url(raw_url, f"the base URL for {handle.raw}", "/v1")
    key = env.get(key_env, "").strip()
    if not key:
        if handle.provider == "openai" and base_url == OPENAI_BASE_URL:
            raise MissingKeyError(key_env, handle.raw)
        key = NO_KEY  # local and self-hosted servers usually want no key
    return OpenAIConfig(
        handle=handle.raw,
        model=handle.model,
        base_url=base_url,
        api_key=key,
        key_env=key_env,
        context_window=options.context_window or context_window_for(handle.provider, handle.model),
        max_output_tokens=options.max_output_tokens,
        temperature=options.temperature,
    )


def build_openai_request(config: OpenAIConfig, request: ModelRequest) -> dict[str, Any]:
    """The Chat Completions body (without `stream`), a pure function of config and request."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    declared = {tool.name for tool in request.tools}
    messages += [_wire_message(m) for m in normalize_history(request.messages, declared)]
    body: dict[str, Any] = {"model": config.model, "messages": messages}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    max_out = request.max_output_tokens or config.max_output_tokens
    if max_out:
        body["max_completion_tokens" if config.is_openai else "max_tokens"] = max_out
    temperature = request.temperature if request.temperature is not None else config.temperature
    if temperature is not None:
        body["temperature"] = temperature
    return body


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": message.content or "(no output)",
        }
    if message.role == "assistant":
        wire: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(arguments_object(call.arguments)),
                    },
                }
                for call in message.tool_calls
            ]
        return wire
    return {"role": "user", "content": message.content}


class OpenAIProvider(SdkProvider):
    base_error = "OpenAIError"
    sdk_module = "openai"
    client_class = "OpenAI"

    def __init__(self, config: OpenAIConfig) -> None:
        super().__init__(config.handle, config.context_window)
        self.config = config

    def _endpoint(self) -> tuple[str | None, str | None]:
        return self.config.api_key, self.config.base_url

    def _build(self, request: ModelRequest) -> dict[str, Any]:
        return build_openai_request(self.config, request)

    def _stream(self, body: dict[str, Any]) -> Iterator[ModelEvent]:
        create = self._client.chat.completions.create
        calls: dict[int, list[str]] = {}  # index -> [id, name, argument fragments...]
        usage: Usage | None = None
        finish: str | None = None
        arguments = self._arguments(body, stream=True, stream_options={"include_usage": True})
        with create(**arguments) as chunks:
            for chunk in chunks:
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                for choice in chunk.choices:
                    delta = choice.delta
                    thought = _reasoning(delta)
                    if thought:
                        yield ReasoningDelta(thought)
                    if delta.content:
                        yield TextDelta(delta.content)
                    for part in delta.tool_calls or ():
                        _merge_fragment(calls, part)
                    finish = choice.finish_reason or finish
        for index in sorted(calls):
            call_id, name, *fragments = calls[index]
            yield ModelToolCall(ToolCall(call_id or _new_call_id(index), name, "".join(fragments)))
        if usage is not None:
            yield UsageEvent(usage)
        yield StopEvent(_stop_reason(finish, bool(calls)))

    def _complete(self, body: dict[str, Any]) -> Iterator[ModelEvent]:
        response = self._client.chat.completions.create(**self._arguments(body))
        choice = response.choices[0] if response.choices else None
        message = choice.message if choice is not None else None
        if message is not None and message.content:
            yield TextDelta(message.content)
        calls = list(message.tool_calls or []) if message is not None else []
        for index, call in enumerate(calls):
            function = getattr(call, "function", None)
            if function is not None:
                call_id = call.id or _new_call_id(index)
                yield ModelToolCall(ToolCall(call_id, function.name or "", function.arguments))
        if response.usage is not None:
            yield UsageEvent(_usage(response.usage))
        finish = choice.finish_reason if choice is not None else None
        yield StopEvent(_stop_reason(finish, bool(calls)))

    def _map_error(self, exc: BaseException) -> ProviderError:
        sdk, config = self._sdk, self.config
        if isinstance(exc, sdk.APIStatusError):
            return classify(
                Failure(
                    handle=config.handle,
                    url=config.base_url,
                    status=exc.status_code,
                    message=_error_message(exc.body, exc.message),
                    error_type=_error_type(exc.body),
                    headers=dict(exc.response.headers),
                    key_env=config.key_env,
                )
            )
        if isinstance(exc, sdk.APIConnectionError | transport_of(sdk).HTTPError):
            return connection_failure(config.handle, config.base_url, exc)
        if isinstance(exc, sdk.APIError):  # an error event inside a 200 stream
            return classify(
                Failure(
                    handle=config.handle,
                    url=config.base_url,
                    status=0,
                    message=_error_message(exc.body, exc.message),
                    error_type=_error_type(exc.body),
                )
            )
        return ProviderError(f"{config.handle}: {one_line(str(exc)) or type(exc).__name__}")


def _usage(raw: Any) -> Usage:
    """Counts from a usage object; `prompt_tokens_details.cached_tokens` when the server sends it
    (OpenAI does; many compatible servers send no details, or null)."""
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return Usage(raw.prompt_tokens or 0, raw.completion_tokens or 0, cached or 0)


def _reasoning(delta: Any) -> str:
    """The reasoning a compatible server puts beside the content: `reasoning_content` (DeepSeek,
    vLLM) or `reasoning` (Ollama, OpenRouter, newer vLLM). The SDK does not declare them; it keeps
    them as extra attributes. A server sending both sends the same text twice: the first counts."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(delta, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _merge_fragment(calls: dict[int, list[str]], part: Any) -> None:
    entry = calls.setdefault(part.index, ["", ""])
    if part.id:
        entry[0] = part.id
    function = part.function
    if function is not None:
        if function.name:
            entry[1] += function.name
        if function.arguments:
            entry.append(function.arguments)


def _new_call_id(index: int) -> str:
    return f"call_{index}_{random_hex(6)}"


def _stop_reason(finish: str | None, has_calls: bool) -> StopReason:
    reason = _STOPS.get(finish or "stop", "end_turn")
    if has_calls and reason != "max_tokens":
        return "tool_use"
    return reason


def _error_message(body: object, fallback: str) -> str:
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(body, str) and body.strip():
        return body
    return fallback


def _error_type(body: object) -> str:
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    return " ".join(str(error[key]) for key in ("type", "code") if error.get(key))


def build_openai_provider(handle: ModelHandle, options: ProviderOptions) -> Provider:
    """Registry factory for openai/ and the local presets (ollama, llamacpp, lmstudio, vllm)."""
    config = resolve_openai_config(handle, options)
    return with_retries(OpenAIProvider(config), options.clock)
