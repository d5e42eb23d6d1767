"""Every SDK client of a process shares one TLS context: making one reads the system's
certificates (about 60 ms of CPU), which each summary, reflection and review client paid again."""

from __future__ import annotations

from mini_letta.conversations.messages import Message
from mini_letta.llm.base import ModelRequest, close_provider, collect
from mini_letta.llm.catalog import CONNECT_TIMEOUT, READ_TIMEOUT
from mini_letta.llm.registry import ProviderOptions, build_provider
from mini_letta.llm.sdk_provider import SdkProvider
from support.groups import SDK
from support.scripted_server import anthropic_stream, openai_stream

pytestmark = SDK


def _sdk_provider(built) -> SdkProvider:
    inner = built.inner  # the retrying wrapper's provider
    assert isinstance(inner, SdkProvider)
    return inner


def _pool_tls(provider: SdkProvider):
    """The TLS context the client's connection pool opens connections with (httpx internals)."""
    return provider._client._client._transport._pool._ssl_context


def _request() -> ModelRequest:
    message = Message("m1", "user", "hi", "2026-01-01T00:00:00.000Z")
    return ModelRequest("You are terse.", (message,), (), "chat")


def test_clients_share_one_tls_context_and_keep_our_timeouts(scripted_server, clock):
    scripted_server.queue(openai_stream("one"), openai_stream("two"), anthropic_stream("three"))
    built = [
        build_provider(
            handle,
            ProviderOptions(environ=env, base_url=scripted_server.url, clock=clock),
        )
        for handle, env in (
            ("openai/gpt-4o", {"OPENAI_API_KEY": "sk-test"}),
            ("openai/gpt-4o-mini", {"OPENAI_API_KEY": "sk-test"}),
            ("anthropic/claude-sonnet-4-5", {"ANTHROPIC_API_KEY": "sk-ant-test"}),
        )
    ]
    try:
        for provider in built:
            collect(provider.stream(_request()))
        inner = [_sdk_provider(p) for p in built]
        assert len({id(_pool_tls(p)) for p in inner}) == 1
        for client in (p._client for p in inner):  # the SDK's and its HTTP client's timeouts
            for timeout in (client.timeout, client._client.timeout):
                assert (timeout.read, timeout.connect) == (READ_TIMEOUT, CONNECT_TIMEOUT)
    finally:
        for provider in built:
            close_provider(provider)
