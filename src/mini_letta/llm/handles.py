"""Model handles, parsed in exactly one place: `mock`, `script:<path>`, `<provider>/<model>`,
an alias (`sonnet`, `opus`, `haiku`, `gpt-4o`, `gpt-5`) or a bare model name; and the one table
of providers, each with the factory that builds it (llm/registry.py imports the factory's
module on first use, so the mock path never loads an SDK).

A bare name is resolved by its shape, never by asking a server: `claude-…` is Anthropic's,
`gpt-…`/`o1…`/`o3…`/`o4…` OpenAI's, and a name with an Ollama tag (`qwen2.5-coder:7b`) or of a
family Ollama serves (`llama3.2`, `mistral`) is Ollama's. Anything else stays an unknown model,
so a typo is an error rather than a request to a local server."""

from __future__ import annotations

import re
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


# What `--model sonnet` means (as `claude --model sonnet`: the family's newest model, by its
# Claude API model ID), and the short OpenAI names. A test keeps each Claude alias on the
# newest model of its family that prices.py has a row of its own for.
ALIASES: Mapping[str, str] = {
    "sonnet": "anthropic/claude-sonnet-5-5",
    "opus": "anthropic/claude-opus-5-5",
    "haiku": "anthropic/claude-haiku-4-5",
    "gpt-4o": "openai/gpt-4o",
    "gpt-4o-mini": "openai/gpt-4o-mini",
    "gpt-5": "openai/gpt-5",
    "gpt-5-mini": "openai/gpt-5-mini",
}
# Bare names by their first letters: the provider whose models are named so.
_FAMILIES: tuple[tuple[str, str], ...] = (
    ("claude-", "anthropic"),
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4-", "openai"),
)
# Model families Ollama's library serves under a bare name (`ollama pull llama3.2`).
OLLAMA_FAMILIES = (
    "llama", "qwen", "mistral", "mixtral", "gemma", "phi", "deepseek", "codellama",
    "codestral", "starcoder", "granite", "smollm", "tinyllama", "command-r", "olmo", "llava",
    "nemotron", "devstral", "magistral", "falcon", "yi", "vicuna", "dolphin", "hermes",
    "openhermes", "wizardlm", "orca", "zephyr", "solar", "aya", "gpt-oss", "cogito", "exaone",
)  # fmt: skip
_TAG = re.compile(r"[a-z0-9][a-z0-9._-]*(:[A-Za-z0-9._-]+)?")
BARE_HINT = "an alias (" + ", ".join(ALIASES) + "), a bare model name"


class ModelHandle(Struct, frozen=True):
    provider: str
    model: str
    raw: str  # the canonical handle (`anthropic/claude-sonnet-5-5` for `sonnet`)


def parse_handle(raw: str) -> ModelHandle:
    """The handle `raw` names; UnknownModelError (listing the providers) for anything else."""
    text = raw.strip()
    text = ALIASES.get(text.lower(), text) if "/" not in text else text
    if text == "mock":
        return ModelHandle("mock", "mock", text)
    if text.startswith("script:"):
        path = text.removeprefix("script:")
        if not path:
            raise UnknownModelError(f"model handle {raw!r} has no path ({_HINT})")
        return ModelHandle("script", path, text)
    provider, sep, model = text.partition("/")
    if not sep:
        bare = bare_provider(text)
        if bare is None:
            raise UnknownModelError(f"unknown model {raw!r} ({_HINT}; or {BARE_HINT})")
        return ModelHandle(bare, text, f"{bare}/{text}")
    if provider not in REMOTE_PROVIDERS or not model.strip():
        raise UnknownModelError(f"unknown model {raw!r} ({_HINT})")
    return ModelHandle(provider, model.strip(), f"{provider}/{model.strip()}")


def bare_provider(name: str) -> str | None:
    """The provider a bare model name belongs to by its shape, or None (not one we know)."""
    lowered = name.lower()
    if lowered.startswith("gpt-oss") or (":" in name and _TAG.fullmatch(name)):
        return "ollama" if _TAG.fullmatch(name) else None
    for prefix, provider in _FAMILIES:
        if lowered.startswith(prefix) and (len(name) > len(prefix) or not prefix.endswith("-")):
            return provider
    if _TAG.fullmatch(name) and lowered.startswith(OLLAMA_FAMILIES):
        return "ollama"
    return None
