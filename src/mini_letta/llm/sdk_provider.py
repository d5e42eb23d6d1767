"""What the OpenAI and Anthropic providers share: the SDK client's lifetime and one error boundary.

A subclass builds the wire body, streams chat turns, answers other purposes (summary,
reflection, merge) with one non-streamed call, and maps an SDK exception to our kinds. This
class owns the order: build, dispatch on purpose, catch only the SDK's own exceptions.
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any

from mini_letta.errors import ProviderError
from mini_letta.llm.base import ModelEvent, ModelRequest
from mini_letta.llm.failures import transport_of


class SdkProvider(ABC):
    def __init__(
        self, handle: str, context_window: int, client: Any, sdk: Any, base_error: type
    ) -> None:
        self.handle = handle
        self.context_window = context_window
        self._client = client
        self._sdk = sdk
        # The SDK client pools connections; release them when the provider is dropped (or
        # closed), so no socket is left for the garbage collector to complain about.
        self._release = weakref.finalize(self, client.close)
        self._errors: tuple[type[BaseException], ...] = (base_error, transport_of(sdk).HTTPError)

    def close(self) -> None:
        self._release()

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        body = self._build(request)
        try:
            if request.purpose == "chat":
                yield from self._stream(body)
            else:
                yield from self._complete(body)
        except self._errors as exc:
            raise self._map_error(exc) from exc

    @abstractmethod
    def _build(self, request: ModelRequest) -> dict[str, Any]: ...

    @abstractmethod
    def _stream(self, body: dict[str, Any]) -> Iterator[ModelEvent]: ...

    @abstractmethod
    def _complete(self, body: dict[str, Any]) -> Iterator[ModelEvent]: ...

    @abstractmethod
    def _map_error(self, exc: BaseException) -> ProviderError: ...
