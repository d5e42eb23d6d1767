"""SDK clients share one TLS context a process (a context costs tens of ms of CPU to load),
and it still verifies certificates and host names."""

from __future__ import annotations

import ssl

import pytest

from mini_letta.llm.anthropic_provider import AnthropicProvider, resolve_anthropic_config
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.http_client import sdk_http_client, shared_tls_context
from mini_letta.llm.openai_provider import OpenAIProvider, resolve_openai_config
from mini_letta.llm.registry import ProviderOptions
from support.groups import SDK

pytestmark = SDK


def test_clients_of_both_sdks_share_one_verifying_context():
    import anthropic
    import openai

    contexts = set()
    for sdk in (openai, anthropic, openai):
        client = sdk_http_client(sdk)
        try:
            contexts.add(id(client._transport._pool._ssl_context))
        finally:
            client.close()
    (only,) = contexts
    context = shared_tls_context(_transport_name(openai))
    assert id(context) == only
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def _openai() -> OpenAIProvider:
    options = ProviderOptions(environ={"OPENAI_API_KEY": "k"})
    return OpenAIProvider(resolve_openai_config(parse_handle("openai/gpt-4o"), options))


def _anthropic() -> AnthropicProvider:
    options = ProviderOptions(environ={"ANTHROPIC_API_KEY": "k"})
    handle = parse_handle("anthropic/claude-sonnet-4-5")
    return AnthropicProvider(resolve_anthropic_config(handle, options))


@pytest.mark.parametrize("make", [_openai, _anthropic])
def test_a_provider_connects_on_the_shared_context_and_closes_its_client(make):
    provider = make()
    http = provider._client._client
    assert http._transport._pool._ssl_context is shared_tls_context(_transport_name(provider._sdk))
    provider.close()
    assert http.is_closed


def _transport_name(sdk) -> str:
    from mini_letta.llm.failures import transport_of

    return transport_of(sdk).__name__
