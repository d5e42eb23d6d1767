"""Build a provider from its handle: the factory named in llm/handles.py `PROVIDERS`, imported
on first use so the mock path never loads an SDK. Each factory takes the parsed handle and
`ProviderOptions` and returns a `Provider`.
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
from mini_letta.llm.base import Provider
from mini_letta.llm.handles import PROVIDERS, ModelHandle, parse_handle


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
    module_name, _, attr = PROVIDERS[parsed.provider].partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    return cast(Provider, factory(parsed, options))
