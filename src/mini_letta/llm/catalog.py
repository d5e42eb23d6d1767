"""What we know about models without asking them: context windows, output limits, base URLs.

The tables are immutable and matched by the longest model-name prefix, so `gpt-4o-2024-08-06`
finds `gpt-4o`. Unknown models get the provider's default; an explicit `contextWindow` in
agent.json or `--context-window` always wins over the table (that choice is made by the caller).
"""

from __future__ import annotations

from collections.abc import Mapping

from mini_letta.errors import InvalidValueError

# Provider presets that speak the OpenAI Chat Completions API on a local port, no key needed.
LOCAL_BASE_URLS: Mapping[str, str] = {
    "ollama": "http://localhost:11434/v1",
    "llamacpp": "http://localhost:8080/v1",
    "lmstudio": "http://localhost:1234/v1",
    "vllm": "http://localhost:8000/v1",
}
OLLAMA_PORT = 11434
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
NO_KEY = "not-needed"  # sent to servers that want no key; the SDKs insist on some value
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 300.0  # a local server may load the model before its first token

DEFAULT_WINDOWS: Mapping[str, int] = {
    "openai": 128_000,
    "anthropic": 200_000,
    "ollama": 32_768,
    "llamacpp": 32_768,
    "lmstudio": 32_768,
    "vllm": 32_768,
}

_OPENAI_WINDOWS: Mapping[str, int] = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4-32k": 32_768,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1-mini": 128_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}
_ANTHROPIC_WINDOWS: Mapping[str, int] = {
    "claude": 200_000,
    "claude-opus-5-5": 1_000_000,
    "claude-sonnet-5-5": 1_000_000,
}
_WINDOWS: Mapping[str, Mapping[str, int]] = {
    "openai": _OPENAI_WINDOWS,
    "anthropic": _ANTHROPIC_WINDOWS,
}

# Anthropic requires max_tokens; these are safe ceilings per family (the API rejects more).
ANTHROPIC_DEFAULT_MAX_OUTPUT = 8_192
_ANTHROPIC_MAX_OUTPUT: Mapping[str, int] = {
    "claude-3-haiku": 4_096,
    "claude-3-opus": 4_096,
    "claude-3-sonnet": 4_096,
}


def normalize_base_url(url: str, what: str, default_path: str = "") -> str:
    """An http(s) URL without a trailing slash; one with no path gets `default_path`."""
    from urllib.parse import urlsplit  # here, not at import: it pulls in ipaddress

    text = url.strip().rstrip("/")
    try:
        parts = urlsplit(text)
        port = parts.port  # a port that is not a number raises here
    except ValueError:  # `http://[::1` and the like
        raise InvalidValueError(f"{what} {url!r} is not an http:// or https:// URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidValueError(f"{what} {url!r} is not an http:// or https:// URL")
    if port is None and parts.netloc.endswith(":"):
        raise InvalidValueError(f"{what} {url!r} has an empty port (say :8000, or leave it out)")
    return text if parts.path else text + default_path


def ollama_host_url(environ: Mapping[str, str]) -> str | None:
    """OLLAMA_HOST as Ollama's own client reads it (`host`, `host:port`, `:port`, or a URL;
    the port defaults to 11434), as a URL; None when it is not set."""
    host = environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return None
    scheme, sep, rest = host.partition("://")
    if not sep:
        scheme, rest = "http", host
    address, slash, path = rest.partition("/")
    if address.startswith(":"):
        address = "127.0.0.1" + address
    if ":" not in address.rpartition("]")[2]:  # no port (an IPv6 address keeps its colons)
        address = f"{address}:{OLLAMA_PORT}"
    return f"{scheme}://{address}{slash}{path}"


def _by_prefix(table: Mapping[str, int], model: str) -> int | None:
    name = model.lower().rsplit("/", 1)[-1]
    matches = [prefix for prefix in table if name.startswith(prefix)]
    return table[max(matches, key=len)] if matches else None


def context_window_for(provider: str, model: str) -> int:
    known = _by_prefix(_WINDOWS.get(provider, {}), model)
    return known or DEFAULT_WINDOWS.get(provider, DEFAULT_WINDOWS["openai"])


def anthropic_max_output(model: str) -> int:
    return _by_prefix(_ANTHROPIC_MAX_OUTPUT, model) or ANTHROPIC_DEFAULT_MAX_OUTPUT
