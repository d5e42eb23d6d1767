"""Model handles, parsed in exactly one place: `mock`, `script:<path>`, `<provider>/<model>`;
and the one table of providers, each with the factory that builds it (llm/registry.py imports
the factory's module on first use, so the mock path never loads an SDK)."""

from __future__ import annotations

from collections.abc import Mapping

from mini_letta.errors import UnknownModelError
from mini_letta.structs import Struct

_OPENAI = "mini_letta.llm.openai_provider:build_openai_provider"  # OpenAI-compatible servers
# provider name -> "module:factory"; adding a provider is one row here and one module
PROVIDERS: Mapping[str, str] = {
    "mock": "mini_letta.llm.mock:build_mock_provider",
    "script": "mini_letta.llm.script:build_script_provider",
    "openai": _OPENAI,
    "anthropic": "mini_letta.llm.anthropic_provider:build_anthropic_provider",
    "ollama": _OPENAI,
    "llamacpp": _OPENAI,
    "lmstudio": _OPENAI,
    "vllm": _OPENAI,
}
REMOTE_PROVIDERS = tuple(name for name in PROVIDERS if name not in ("mock", "script"))
_HINT = "use mock, script:<path>, or <provider>/<model> with provider one of " + ", ".join(
    REMOTE_PROVIDERS
)


class ModelHandle(Struct, frozen=True):
    provider: str
    model: str
    raw: str


def parse_handle(raw: str) -> ModelHandle:
    text = raw.strip()
    if text == "mock":
        return ModelHandle("mock", "mock", text)
    if text.startswith("script:"):
        path = text.removeprefix("script:")
        if not path:
            raise UnknownModelError(f"model handle {raw!r} has no path ({_HINT})")
        return ModelHandle("script", path, text)
    provider, sep, model = text.partition("/")
    if not sep or provider not in REMOTE_PROVIDERS or not model.strip():
        raise UnknownModelError(f"unknown model {raw!r} ({_HINT})")
    return ModelHandle(provider, model.strip(), text)
