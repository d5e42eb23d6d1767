"""The one provider protocol: a request in, a stream of typed events out.

Every provider — the embedded mock, the scripted replayer, the OpenAI and Anthropic SDKs —
implements `stream()`. Events arrive in order: any number of `TextDelta`, `ReasoningDelta` and
`ModelToolCall`, then at most one `UsageEvent`, then exactly one `StopEvent`. Errors are raised
as the `ProviderError` kinds in `mini_letta.errors`; no SDK type ever leaves a provider.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal, Protocol, runtime_checkable

from mini_letta.conversations.messages import Message, StopReason, ToolCall, Usage
from mini_letta.structs import Struct, field

Purpose = Literal["chat", "reflection", "summary", "merge"]


class ToolSpec(Struct, frozen=True):
    """What the model sees of a tool: its name, a one-paragraph description, a JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


class ModelRequest(Struct, frozen=True):
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    purpose: Purpose = "chat"
    max_output_tokens: int | None = None
    temperature: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


class TextDelta(Struct, frozen=True):
    text: str


class ReasoningDelta(Struct, frozen=True):
    """A piece of the model's reasoning, streamed by models that show it. It is not the
    answer: shown as it comes, never kept in the conversation or replayed to the model."""

    text: str


class ModelToolCall(Struct, frozen=True):
    call: ToolCall


class UsageEvent(Struct, frozen=True):
    usage: Usage


class StopEvent(Struct, frozen=True):
    reason: StopReason


ModelEvent = TextDelta | ReasoningDelta | ModelToolCall | UsageEvent | StopEvent


class Provider(Protocol):
    handle: str
    context_window: int

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        """Stream one model response; raises ProviderError kinds on failure."""
        ...


@runtime_checkable
class Closeable(Protocol):
    def close(self) -> None: ...


def close_provider(provider: Provider) -> None:
    """Release a provider's connections now; providers that hold none have no `close`."""
    if isinstance(provider, Closeable):
        provider.close()


class ProviderInUse:
    """`with ProviderInUse(provider):` closes it when the block ends, however it ends."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def __enter__(self) -> Provider:
        return self.provider

    def __exit__(self, *exc: object) -> None:
        close_provider(self.provider)


class ModelResponse(Struct, frozen=True):
    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage | None
    stop_reason: StopReason


def collect(events: Iterator[ModelEvent]) -> ModelResponse:
    """Drain a stream into one response (for callers that do not show tokens as they come;
    reasoning is dropped)."""
    parts: list[str] = []
    calls: list[ToolCall] = []
    usage: Usage | None = None
    stop: StopReason = "end_turn"
    for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        elif isinstance(event, ModelToolCall):
            calls.append(event.call)
        elif isinstance(event, UsageEvent):
            usage = event.usage
        elif isinstance(event, StopEvent):
            stop = event.reason
    return ModelResponse("".join(parts), tuple(calls), usage, stop)
