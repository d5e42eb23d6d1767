"""What a failed model call means, decided once for every provider: our error kinds.

The SDK providers hand over the facts (HTTP status, error type or code, message, headers, the
server's URL) and get back the one `ProviderError` to raise: auth, quota, bad request, unknown
model, context overflow, transient (with `retry_after`) or unreachable. Nothing here imports an
SDK; the phrase lists follow what OpenAI, Anthropic, llama.cpp, vLLM, LM Studio and Ollama say.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType

from mini_letta.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    ProviderError,
    QuotaError,
    TransientError,
    UnknownModelError,
    UnreachableError,
)
from mini_letta.structs import Struct

MESSAGE_LIMIT = 300

_OVERFLOW_PHRASES = (
    "context_length_exceeded",
    "context window",
    "context length",
    "context size",
    "maximum context",
    "prompt is too long",
    "prompt too long",
    "input is too long",
    "too many tokens",
    "request too large",
    "request_too_large",
    "reduce the length",
    "exceeds the available context",
)
_QUOTA_PHRASES = (
    "insufficient_quota",
    "exceeded your current quota",
    "billing",
    "credit balance",
    "out of credits",
    "usage_limit",
    "spend_limit",
    "spend limit",
)
_TRANSIENT_TYPES = ("overloaded_error", "api_error", "rate_limit_error", "timeout_error")


class Failure(Struct, frozen=True):
    """An HTTP-level failure as the SDK reported it; `status` is 0 for an in-stream error."""

    handle: str
    url: str
    status: int
    message: str
    error_type: str = ""
    headers: Mapping[str, str] | None = None
    key_env: str = ""


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (a number; HTTP dates are ignored)."""
    if not headers:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = lowered.get(key)
        if raw is None:
            continue
        try:
            value = float(raw.strip()) * scale
        except ValueError:
            continue
        if value >= 0:
            return value
    return None


def is_overflow(text: str) -> bool:
    lowered = text.lower()
    return any(phrase in lowered for phrase in _OVERFLOW_PHRASES)


def is_quota(text: str) -> bool:
    lowered = text.lower()
    return any(phrase in lowered for phrase in _QUOTA_PHRASES)


def classify(failure: Failure) -> ProviderError:
    """The error kind for an HTTP failure (most specific first: overflow, quota, then status)."""
    status, what = failure.status, f"{failure.error_type} {failure.message}"
    detail = one_line(failure.message) or "no message"
    where = f"{failure.handle}: {failure.url} answered HTTP {status}: {detail}"
    if status == 0:
        where = f"{failure.handle}: the stream from {failure.url} reported an error: {detail}"
    if status == 413 or (status in (0, 400, 422) and is_overflow(what)):
        return ContextOverflowError(f"{where} (the request does not fit the context window)")
    if status in (402, 0, 400, 403, 429) and is_quota(what):
        return QuotaError(f"{where} (out of quota or credits; check the account's plan)")
    if status in (401, 403) or failure.error_type in ("authentication_error", "permission_error"):
        hint = f"check {failure.key_env}" if failure.key_env else "check the API key"
        return AuthError(f"{where} ({hint})")
    if status == 404 or failure.error_type == "not_found_error":
        return UnknownModelError(f"{where} (check the model name and the base URL)")
    if status in (408, 409, 425, 429) or status >= 500 or failure.error_type in _TRANSIENT_TYPES:
        return TransientError(where, retry_after=parse_retry_after(failure.headers))
    if status == 0:
        return TransientError(where)
    return BadRequestError(where)


def connection_failure(handle: str, url: str, exc: BaseException) -> ProviderError:
    """A transport failure: nothing listening (unreachable) or a broken or slow exchange."""
    chain = _chain(exc)
    names = {type(item).__name__ for item in chain}
    detail = one_line(str(chain[-1]) or type(chain[-1]).__name__, 160)
    if "ConnectError" in names or any(
        isinstance(item, ConnectionRefusedError | _gaierror()) for item in chain
    ):
        return UnreachableError(
            f"{handle}: cannot reach {url} ({detail}); is the server running and the URL right?",
            url,
        )
    if names & {
        "APITimeoutError",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "ConnectTimeout",
        "TimeoutError",
    }:
        return TransientError(f"{handle}: {url} did not answer in time ({detail})")
    return TransientError(f"{handle}: the connection to {url} broke ({detail})")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _gaierror() -> type[OSError]:
    import socket

    return socket.gaierror


def transport_of(sdk: ModuleType) -> ModuleType:
    """The HTTP library an SDK runs on (`httpx`, or `httpx2` where it is packaged so)."""
    client_base = sdk.DefaultHttpxClient.__bases__[0]
    return importlib.import_module(client_base.__module__.partition(".")[0])
