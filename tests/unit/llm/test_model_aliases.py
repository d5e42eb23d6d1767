"""Model aliases and bare names (`sonnet`, `gpt-5`, `llama3.2`) as `--model` reads them, and
OLLAMA_HOST as the ollama provider reads it."""

from __future__ import annotations

import re

import pytest

from mini_letta.errors import UnknownModelError
from mini_letta.llm.availability import alias_table, provider_states
from mini_letta.llm.catalog import context_window_for, ollama_host_url
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.openai_provider import resolve_openai_config
from mini_letta.llm.prices import price_key, priced_handles
from mini_letta.llm.registry import ProviderOptions

ALIASES = [
    ("gpt-4o", "openai/gpt-4o"),
    ("gpt-5", "openai/gpt-5"),
    ("gpt-4.1-mini", "openai/gpt-4.1-mini"),
    ("o3", "openai/o3"),
    ("claude-3-5-haiku-latest", "anthropic/claude-3-5-haiku-latest"),
    ("llama3.2", "ollama/llama3.2"),
    ("qwen2.5-coder:7b", "ollama/qwen2.5-coder:7b"),
    ("gpt-oss:20b", "ollama/gpt-oss:20b"),
    ("mymodel:latest", "ollama/mymodel:latest"),
    (" openai/gpt-4o ", "openai/gpt-4o"),
]


def test_aliases_and_bare_names_resolve_to_handles():
    wrong = [(raw, h, parse_handle(raw).raw) for raw, h in ALIASES if parse_handle(raw).raw != h]
    assert wrong == []  # (name, expected handle, handle read)


def _version(handle: str, family: str) -> tuple[int, ...] | None:
    """(major, minor) of `anthropic/claude-<family>-<major>[-<minor>]`, else None."""
    found = re.fullmatch(rf"anthropic/claude-{family}-(\d+)(?:-(\d+))?", handle)
    return tuple(int(part or 0) for part in found.groups()) if found else None


@pytest.mark.parametrize("family", ["sonnet", "opus", "haiku"])
def test_a_claude_alias_is_the_newest_model_of_its_family_that_we_price(family):
    """As `claude --model opus`: the family's newest model, named by its model ID (not a dated
    snapshot), with a price row of its own; so a model added to the tables moves the alias."""
    handle = parse_handle(family).raw
    assert parse_handle(family.title()).raw == handle  # aliases ignore case
    assert _version(handle, family) is not None, handle
    assert price_key(handle) == handle  # its own row, not an older family prefix's
    family_rows = [h for h in priced_handles() if _version(h, family) is not None]
    newest = max(family_rows, key=lambda h: _version(h, family) or ())
    assert handle == newest, f"{family} resolves to {handle}, the newest priced is {newest}"


def test_the_current_sonnet_and_opus_have_their_1m_window_and_older_claudes_keep_200k():
    for alias in ("sonnet", "opus"):
        model = parse_handle(alias).raw.removeprefix("anthropic/")
        assert context_window_for("anthropic", model) == 1_000_000, alias
    assert context_window_for("anthropic", "claude-sonnet-4-5") == 200_000


def test_a_bare_name_of_no_known_shape_stays_unknown():
    for raw in ["gpt4", "nonsense", "sonet", "Llama3.2", "qwen 2", "llama:"]:
        with pytest.raises(UnknownModelError, match="sonnet, opus, haiku"):
            parse_handle(raw)


def test_a_slash_handle_is_never_taken_for_an_alias():
    assert parse_handle("ollama/sonnet").raw == "ollama/sonnet"


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:8000", "http://gpu-box:8000"),
        (":9999", "http://127.0.0.1:9999"),
        ("https://ollama.example.com", "https://ollama.example.com:11434"),
        ("http://10.0.0.2:11434/", "http://10.0.0.2:11434/"),
        ("[::1]", "http://[::1]:11434"),
        ("[::1]:5000", "http://[::1]:5000"),
    ],
)
def test_ollama_host_reads_as_ollamas_client_reads_it(host, url):
    assert ollama_host_url({"OLLAMA_HOST": host}) == url
    assert ollama_host_url({}) is None


def test_a_bare_ollama_tag_goes_to_ollama_host_unless_a_url_is_given():
    env = {"OLLAMA_HOST": "gpu-box:8000"}
    handle = parse_handle("qwen2.5-coder:7b")
    config = resolve_openai_config(handle, ProviderOptions(environ=env))
    assert config.base_url == "http://gpu-box:8000/v1" and config.model == "qwen2.5-coder:7b"
    given = ProviderOptions(environ=env, base_url="http://127.0.0.1:9/v1")
    assert resolve_openai_config(handle, given).base_url == "http://127.0.0.1:9/v1"
    bare = resolve_openai_config(handle, ProviderOptions(environ={}))
    assert bare.base_url == "http://localhost:11434/v1"
    other = resolve_openai_config(parse_handle("vllm/x"), ProviderOptions(environ=env))
    assert other.base_url == "http://localhost:8000/v1"  # OLLAMA_HOST is ollama's only


def test_provider_states_say_whether_a_key_is_set_never_what_it_is():
    env = {"ANTHROPIC_API_KEY": "sk-ant-secret", "OLLAMA_HOST": "box"}
    states = {state.name: state for state in provider_states(env)}
    assert states["anthropic"].key_set and states["anthropic"].usable
    assert not states["openai"].key_set and not states["openai"].usable
    assert states["ollama"].base_url == "http://box:11434"
    assert states["ollama"].url_from == "OLLAMA_HOST"
    assert "sk-ant-secret" not in repr([state.to_json() for state in states.values()])
    assert ("sonnet", "anthropic/claude-sonnet-5-5") in alias_table()
