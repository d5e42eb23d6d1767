"""What `mini-letta models` shows: the aliases, and for each provider whether its key is in
the environment and which server it would talk to. A key's value is never returned, only
whether one is set."""

from __future__ import annotations

from collections.abc import Mapping

from mini_letta.llm.catalog import (
    ANTHROPIC_BASE_URL,
    LOCAL_BASE_URLS,
    OPENAI_BASE_URL,
    ollama_host_url,
)
from mini_letta.llm.handles import ALIASES, REMOTE_PROVIDERS, parse_handle
from mini_letta.structs import Struct

# provider -> (the variable holding its key, the one that moves its server); the key of a
# local server is optional, so it is not listed.
_VARIABLES: Mapping[str, tuple[str | None, str | None]] = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "ollama": (None, "OLLAMA_HOST"),
}
_DEFAULT_URLS: Mapping[str, str] = {
    "openai": OPENAI_BASE_URL,
    "anthropic": ANTHROPIC_BASE_URL,
    **LOCAL_BASE_URLS,
}


class ProviderState(Struct, frozen=True):
    name: str
    key_env: str | None  # None: the server wants no key
    key_set: bool
    base_url: str
    url_from: str | None  # the variable that set `base_url` (None: the default)

    @property
    def usable(self) -> bool:
        """A key is set, or none is needed (a local server still has to be running)."""
        return self.key_env is None or self.key_set

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "keyEnv": self.key_env,
            "keySet": self.key_set,
            "baseUrl": self.base_url,
            "baseUrlFrom": self.url_from,
        }


def provider_states(environ: Mapping[str, str]) -> list[ProviderState]:
    """Every remote provider, in the table's order, as `environ` sets it up."""
    states = []
    for name in REMOTE_PROVIDERS:
        key_env, url_env = _VARIABLES.get(name, (None, None))
        url = environ.get(url_env, "").strip() if url_env else ""
        if url and name == "ollama":
            url = ollama_host_url(environ) or url
        states.append(
            ProviderState(
                name=name,
                key_env=key_env,
                key_set=bool(key_env and environ.get(key_env, "").strip()),
                base_url=url or _DEFAULT_URLS[name],
                url_from=url_env if url else None,
            )
        )
    return states


def alias_table() -> list[tuple[str, str]]:
    """(alias, the handle it resolves to), as `--model` reads them."""
    return [(alias, parse_handle(alias).raw) for alias in ALIASES]
