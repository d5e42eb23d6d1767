"""The per-SDK-version mapping of request fields (llm/sdk_options.py), checked against the
installed SDKs' `create` signatures with `inspect`; an SDK major without a row is refused."""

from __future__ import annotations

import importlib
import inspect

import pytest

from mini_letta.conversations.messages import Message
from mini_letta.errors import ProviderError
from mini_letta.llm.anthropic_provider import AnthropicConfig, build_anthropic_request
from mini_letta.llm.base import ModelRequest, ToolSpec
from mini_letta.llm.openai_provider import OpenAIConfig, build_openai_request
from mini_letta.llm.sdk_options import SDK_FIELDS, sdk_arguments, sdk_fields
from support.groups import SDK

pytestmark = SDK  # it imports both SDKs: run where they are loaded

CREATE = {
    "openai": ("openai.resources.chat.completions", "Completions"),
    "anthropic": ("anthropic.resources.messages", "Messages"),
}
TOOL = ToolSpec("Grep", "Search files.", {"type": "object", "properties": {}})
REQUEST = ModelRequest(
    "Be brief.",
    (Message(id="m1", role="user", content="hi", created_at="2026-01-01T00:00:00Z"),),
    (TOOL,),
    max_output_tokens=100,
    temperature=0.3,
)


def _installed(package: str) -> tuple[str, frozenset[str]]:
    sdk = importlib.import_module(package)
    module, cls = CREATE[package]
    create = getattr(importlib.import_module(module), cls).create
    return sdk.__version__, frozenset(inspect.signature(create).parameters)


@pytest.mark.parametrize("package", sorted(CREATE))
def test_the_installed_sdk_has_a_row_that_matches_its_create_signature(package):
    version, parameters = _installed(package)
    fields = sdk_fields(package, version)
    assert fields.keywords <= parameters, fields.keywords - parameters
    assert not fields.extra_body & parameters  # a named parameter must go as a keyword
    assert "extra_body" in parameters


def _bodies(package: str) -> list[dict]:
    if package == "openai":
        for base in ("https://api.openai.com/v1", "http://127.0.0.1:1/v1"):  # both token names
            config = OpenAIConfig("openai/x", "x", base, "k", "OPENAI_API_KEY", 8000, 100, 0.2)
            yield {**build_openai_request(config, REQUEST), "stream": True, "stream_options": {}}
    else:
        config = AnthropicConfig("anthropic/x", "x", "http://127.0.0.1:1", "k", 8000, 100, 0.2)
        yield {**build_anthropic_request(config, REQUEST), "stream": True}


@pytest.mark.parametrize("package", sorted(CREATE))
def test_every_field_a_body_builder_writes_is_mapped(package):
    version, parameters = _installed(package)
    fields = sdk_fields(package, version)
    for body in _bodies(package):
        arguments = sdk_arguments(fields, body)
        assert set(arguments) <= parameters  # the call would not raise a TypeError
        sent = {**arguments, **arguments.get("extra_body", {})}
        sent.pop("extra_body", None)
        assert sent == body  # nothing lost: what the SDK does not name travels in extra_body


def test_anthropic_2_sends_temperature_in_extra_body():
    body = {"model": "x", "max_tokens": 10, "messages": [], "temperature": 0.3}
    arguments = sdk_arguments(SDK_FIELDS[("anthropic", 2)], body)
    assert arguments["extra_body"] == {"temperature": 0.3} and "temperature" not in arguments
    assert "extra_body" not in sdk_arguments(SDK_FIELDS[("openai", 3)], {"temperature": 0.3})


@pytest.mark.parametrize(("package", "version"), [("anthropic", "3.0.0"), ("openai", "1.99.0")])
def test_an_sdk_major_without_a_row_is_refused_with_the_tested_range(package, version):
    with pytest.raises(ProviderError, match=rf"{package} SDK {version} is not a version"):
        sdk_fields(package, version)


def test_a_field_no_row_maps_is_a_bug_not_a_silent_drop():
    with pytest.raises(RuntimeError, match="no mapping"):
        sdk_arguments(SDK_FIELDS[("openai", 3)], {"model": "x", "top_k": 3})
