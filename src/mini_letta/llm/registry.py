"""Provider name -> factory, imported on first use so the mock path never loads an SDK.

The table is immutable; each factory takes the parsed handle and `ProviderOptions` and returns
a `Provider`. Adding a provider means one row here and one module.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from mini_letta.structs import Struct, field

__all__ = ["CacheTtl", "ProviderOptions", "build_provider"]

from mini_letta.agents.records import CacheTtl
from mini_letta.clock import Clock, SystemClock
from mini_letta.errors import UnknownModelError
from mini_letta.llm.base import Provider
from mini_letta.llm.handles import ModelHandle, parse_handle

_OPENAI = "mini_letta.llm.openai_provider:build_openai_provider"
_FACTORIES: Mapping[str, str] = {
    "mock": "mini_letta.llm.mock:build_mock_provider",
    "script": "mini_letta.llm.script:build_script_provider",
    "openai": _OPENAI,
    "ollama": _OPENAI,
    "llamacpp": _OPENAI,
    "lmstudio": _OPENAI,
    "vllm": _OPENAI,
    "anthropic": "mini_letta.llm.anthropic_provider:build_anthropic_provider",
}


class ProviderOptions(Struct, frozen=True):
    environ: Mapping[str, str] = field(default_factory=dict)
    base_url: str | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    clock: Clock = field(default_factory=SystemClock)
    cwd: Path | None = None  # where a relative script:<path> is found
    cache_ttl: CacheTtl | None = None  # how long Anthropic keeps the prompt cache (None: 5m)


def build_provider(handle: str | ModelHandle, options: ProviderOptions) -> Provider:
    parsed = parse_handle(handle) if isinstance(handle, str) else handle
    target = _FACTORIES.get(parsed.provider)
    if target is None:
        available = ", ".join(sorted(_FACTORIES))
        raise UnknownModelError(
            f"provider {parsed.provider!r} is not available in this build (available: {available})"
        )
    module_name, _, attr = target.partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    return cast(Provider, factory(parsed, options))
