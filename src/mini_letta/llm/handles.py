"""Model handles, parsed in exactly one place: `mock`, `script:<path>`, `<provider>/<model>`."""

from __future__ import annotations

from mini_letta.errors import UnknownModelError
from mini_letta.structs import Struct

PROVIDERS = ("mock", "script", "openai", "anthropic", "ollama", "llamacpp", "lmstudio", "vllm")
_HINT = "use mock, script:<path>, or <provider>/<model> with provider one of " + ", ".join(
    PROVIDERS[2:]
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
    if not sep or provider not in PROVIDERS[2:] or not model.strip():
        raise UnknownModelError(f"unknown model {raw!r} ({_HINT})")
    return ModelHandle(provider, model.strip(), text)
