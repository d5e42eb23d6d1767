"""What the OpenAI and Anthropic providers share: the SDK client's lifetime and one error boundary.

A subclass builds the wire body, streams chat turns, answers other purposes (summary,
reflection, merge) with one non-streamed call, and maps an SDK exception to our kinds. This
class owns the order: build, dispatch on purpose, catch only the SDK's own exceptions.

The SDK is imported and its client made at the first request, not when the provider is built:
what only reads the model's window (`context`, `conversations show`, a reflection's budget)
never pays the SDK's import (about a second on a busy machine). `close()` releases the
client's connection pool; whoever built the provider closes it when done.
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, ClassVar

from mini_letta.errors import ProviderError
from mini_letta.llm.base import ModelEvent, ModelRequest
from mini_letta.llm.catalog import CONNECT_TIMEOUT, READ_TIMEOUT
from mini_letta.llm.failures import transport_of


class SdkProvider(ABC):
    base_error: ClassVar[str]  # the SDK's root exception class, e.g. "OpenAIError"

    def __init__(self, handle: str, context_window: int) -> None:
        self.handle = handle
        self.context_window = context_window
        self._connection: tuple[Any, Any] | None = None  # (client, sdk module) once connected
        self._release: weakref.finalize[..., Any] | None = None

    @property
    def _client(self) -> Any:
        return self._connected()[0]

    @property
    def _sdk(self) -> Any:
        return self._connected()[1]

    def _connected(self) -> tuple[Any, Any]:
        if self._connection is None:
            client, sdk = self._connect()
            self._connection = (client, sdk)
            # Closed by `close()`; if an embedding program forgets, the pool is still released
            # when the provider is dropped rather than at some later collection.
            self._release = weakref.finalize(self, client.close)
        return self._connection

    def close(self) -> None:
        """Release the client's connections; a later request connects again."""
        if self._release is not None:
            self._release()
        self._connection = self._release = None

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        body = self._build(request)
        sdk = self._sdk
        errors: tuple[type[BaseException], ...] = (
            getattr(sdk, self.base_error),
            transport_of(sdk).HTTPError,
        )
        try:
            if request.purpose == "chat":
                yield from self._stream(body)
            else:
                yield from self._complete(body)
        except errors as exc:
            raise self._map_error(exc) from exc

    sdk_module: ClassVar[str]  # the SDK's import name ("openai")
    client_class: ClassVar[str]  # its client class ("OpenAI")

    def _connect(self) -> tuple[Any, Any]:
        """Import the SDK and make its client, with our timeouts and no SDK retries (ours
        classify and retry): (client, sdk module)."""
        try:
            sdk = __import__(self.sdk_module)
        except ImportError as exc:  # pragma: no cover - a broken install
            raise ProviderError(
                f"{self.handle} needs the {self.sdk_module} package (pip install {self.sdk_module})"
            ) from exc
        api_key, base_url = self._endpoint()
        from mini_letta.llm.http_client import sdk_http_client

        http = transport_of(sdk)
        client = getattr(sdk, self.client_class)(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=http.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT),
            http_client=sdk_http_client(sdk),
        )
        return client, sdk

    def _arguments(self, body: dict[str, Any], **more: Any) -> dict[str, Any]:
        """`body` (and `more`) as keyword arguments of the installed SDK's `create`, by its
        major version's row in llm/sdk_options.py."""
        from mini_letta.llm.sdk_options import sdk_arguments, sdk_fields

        fields = sdk_fields(self.sdk_module, str(getattr(self._sdk, "__version__", "")))
        return sdk_arguments(fields, {**body, **more})

    @abstractmethod
    def _endpoint(self) -> tuple[str | None, str | None]:
        """(API key, base URL) the client is made with."""

    @abstractmethod
    def _build(self, request: ModelRequest) -> dict[str, Any]: ...

    @abstractmethod
    def _stream(self, body: dict[str, Any]) -> Iterator[ModelEvent]: ...

    @abstractmethod
    def _complete(self, body: dict[str, Any]) -> Iterator[ModelEvent]: ...

    @abstractmethod
    def _map_error(self, exc: BaseException) -> ProviderError: ...
