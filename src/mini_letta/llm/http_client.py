"""The HTTP client every SDK client is made with: the SDK's defaults, one TLS context a process.

Making a TLS context loads the system's CA bundle, about 60 ms of CPU each time. The SDKs make
one per client, and a long-lived program makes many clients: a provider per conversation in an
editor's agent, one per embedding search. An `ssl.SSLContext` is safe to share between clients
and threads, so the first client's context serves the rest. It is read from the environment
(`SSL_CERT_FILE`, `SSL_CERT_DIR`) once, as the HTTP library would have read it.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mini_letta.llm.failures import transport_of

if TYPE_CHECKING:
    import ssl


def sdk_http_client(sdk: ModuleType) -> Any:
    """A new `DefaultHttpxClient` of `sdk` (its timeouts, limits and redirects) on the shared
    TLS context; the caller's SDK client owns it and closes it."""
    return sdk.DefaultHttpxClient(verify=shared_tls_context(transport_of(sdk).__name__))


@functools.cache
def shared_tls_context(transport: str) -> ssl.SSLContext:
    """The TLS context `transport` (`httpx` or its successor) would make for a client."""
    context: ssl.SSLContext = importlib.import_module(transport).create_ssl_context()
    return context
