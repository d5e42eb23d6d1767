"""anthropic/ driven through the real anthropic SDK against the scripted Messages server."""

from __future__ import annotations

import pytest

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    MissingKeyError,
    QuotaError,
    TransientError,
    UnknownModelError,
)
from mini_letta.llm.anthropic_provider import resolve_anthropic_config
from mini_letta.llm.base import (
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolSpec,
    close_provider,
    collect,
)
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.registry import ProviderOptions, build_provider
from support.groups import SDK
from support.scripted_server import (
    Reply,
    anthropic_error,
    anthropic_message,
    anthropic_stream,
    breakpoint_problem,
    cache_breakpoints,
)

pytestmark = SDK

KEY_ENV = {"ANTHROPIC_API_KEY": "sk-ant-test-dummy"}
GREP = ToolSpec(
    "Grep",
    "Search.",
    {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
)


def _msg(mid: str, role: str, content: str, **fields) -> Message:
    return Message(mid, role, content, "2026-01-01T00:00:00.000Z", **fields)  # type: ignore[arg-type]


def _request(*messages: Message, purpose: str = "chat") -> ModelRequest:
    return ModelRequest("Be brief.", messages or (_msg("m1", "user", "hi"),), (GREP,), purpose)  # type: ignore[arg-type]


@pytest.fixture
def provider(scripted_server, clock):
    built = build_provider(
        "anthropic/claude-sonnet-4-5",
        ProviderOptions(environ=KEY_ENV, base_url=scripted_server.url, clock=clock),
    )
    yield built
    close_provider(built)


def test_anthropic_streams_text_tool_use_and_usage(provider, scripted_server):
    use = {"id": "toolu_1", "name": "Grep", "input": {"pattern": "TODO"}}
    scripted_server.queue(anthropic_stream("Searching now.", [use], usage=(120, 15)))
    events = list(provider.stream(_request()))
    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == "Searching now."
    response = collect(iter(events))
    assert response.tool_calls == (ToolCall("toolu_1", "Grep", '{"pattern": "TODO"}'),)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (120, 15)
    assert response.stop_reason == "tool_use"
    request = scripted_server.requests[-1]
    assert request.path == "/v1/messages"
    sent = (request.headers.get("x-api-key"), request.headers.get("authorization"))
    assert "sk-ant-test-dummy" in sent or "Bearer sk-ant-test-dummy" in sent
    assert request.body["stream"] is True
    assert request.body["max_tokens"] == 8192
    assert request.body["system"] == [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    ]
    assert request.body["tools"] == [
        {"name": "Grep", "description": "Search.", "input_schema": GREP.parameters}
    ]


def test_anthropic_thinking_deltas_stream_as_reasoning_not_text(provider, scripted_server):
    scripted_server.queue(anthropic_stream("Yes.", thinking="Check the docs first."))
    events = list(provider.stream(_request()))
    is_text = [
        isinstance(e, TextDelta) for e in events if isinstance(e, ReasoningDelta | TextDelta)
    ]
    assert is_text == sorted(is_text) and not is_text[0] and is_text[-1]  # reasoning, then text
    thought = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert thought == "Check the docs first."
    assert collect(iter(events)).text == "Yes."


def test_anthropic_history_alternates_with_tool_results_in_user_turns(provider, scripted_server):
    scripted_server.queue(anthropic_stream("done"))
    calls = (ToolCall("call.1", "Grep", '{"pattern": "x"}'), ToolCall("c2", "Grep", "{}"))
    history = (
        _msg("m1", "user", "find x"),
        _msg("m2", "assistant", "Looking.", tool_calls=calls),
        _msg("m3", "tool", "a.py:1: x", tool_call_id="call.1", name="Grep"),
        _msg("m4", "tool", "Error", tool_call_id="c2", name="Grep", is_error=True),
        _msg("m5", "summary", "earlier we talked"),
        _msg("m6", "user", "and now?"),
    )
    collect(provider.stream(_request(*history)))
    turns = scripted_server.requests[-1].body["messages"]
    assert [turn["role"] for turn in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "call_1", "name": "Grep", "input": {"pattern": "x"}},
        {"type": "tool_use", "id": "c2", "name": "Grep", "input": {}},
    ]
    results, (summary,) = turns[2]["content"][:2], turns[2]["content"][2:]
    assert results[0] == {
        "type": "tool_result",
        "tool_use_id": "call_1",
        "content": "a.py:1: x",
        "is_error": False,
    }
    assert results[1]["is_error"] is True
    assert summary["text"].startswith("Summary of the earlier conversation:")
    assert summary["text"].endswith("earlier we talked\n\nand now?")  # one block per turn


def test_anthropic_non_chat_purpose_uses_one_plain_call(provider, scripted_server):
    use = {"id": "toolu_2", "name": "Grep", "input": {"pattern": "y"}}
    scripted_server.queue(anthropic_message("summary text", [use], usage=(50, 6)))
    response = collect(provider.stream(_request(purpose="reflection")))
    assert response.text == "summary text"
    assert response.tool_calls == (ToolCall("toolu_2", "Grep", '{"pattern": "y"}'),)
    assert response.stop_reason == "tool_use"
    assert "stream" not in scripted_server.requests[-1].body


def test_anthropic_overloaded_is_retried_honouring_retry_after(provider, scripted_server, clock):
    scripted_server.queue(
        anthropic_error(529, "Overloaded", type="overloaded_error", headers={"retry-after": "3"}),
        anthropic_stream("there"),
    )
    assert collect(provider.stream(_request())).text == "there"
    assert clock.sleeps == [3.0]


def test_anthropic_error_event_before_output_is_retried(provider, scripted_server, clock):
    start = anthropic_stream("x").sse[0]
    error = ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
    scripted_server.queue(Reply(sse=[start, error]), anthropic_stream("second try"))
    assert collect(provider.stream(_request())).text == "second try"
    assert clock.sleeps == [1.0]


def test_anthropic_drop_mid_stream_after_text_is_not_retried(provider, scripted_server, clock):
    stream = anthropic_stream("some streamed words", chunk_size=3)
    scripted_server.queue(Reply(sse=stream.sse, drop_after=5))
    with pytest.raises(TransientError, match="broke"):
        collect(provider.stream(_request()))
    assert clock.sleeps == []


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (
            anthropic_error(
                400,
                "prompt is too long: 210000 tokens > 200000 maximum",
                type="invalid_request_error",
            ),
            ContextOverflowError,
        ),
        (
            anthropic_error(413, "Request exceeds the maximum size", type="request_too_large"),
            ContextOverflowError,
        ),
        (
            anthropic_error(400, "messages: field required", type="invalid_request_error"),
            BadRequestError,
        ),
        (
            anthropic_error(400, "Your credit balance is too low", type="invalid_request_error"),
            QuotaError,
        ),
        (anthropic_error(401, "invalid x-api-key", type="authentication_error"), AuthError),
        (anthropic_error(403, "no access", type="permission_error"), AuthError),
        (anthropic_error(404, "model: claude-9", type="not_found_error"), UnknownModelError),
    ],
    ids=["overflow", "413", "bad-request", "credit", "401", "403", "404"],
)
def test_anthropic_http_errors_map_to_our_kinds(provider, scripted_server, clock, reply, kind):
    scripted_server.queue(reply)
    with pytest.raises(kind) as caught:
        collect(provider.stream(_request()))
    assert clock.sleeps == []
    assert str(caught.value).startswith("anthropic/claude-sonnet-4-5: ")
    assert not type(caught.value).__module__.startswith("anthropic")


@pytest.mark.parametrize("status", [429, 500, 503, 529], ids=str)
def test_anthropic_transient_statuses_are_retried(provider, scripted_server, clock, status):
    scripted_server.queue(anthropic_error(status, "later", type="rate_limit_error"))
    scripted_server.queue(anthropic_stream("ok"))
    assert collect(provider.stream(_request())).text == "ok"


def test_anthropic_without_key_names_the_variable():
    with pytest.raises(MissingKeyError, match="ANTHROPIC_API_KEY"):
        build_provider("anthropic/claude-opus-4", ProviderOptions())


def test_anthropic_base_url_from_environment_and_limits():
    env = {**KEY_ENV, "ANTHROPIC_BASE_URL": "http://proxy:9/"}
    config = resolve_anthropic_config(
        parse_handle("anthropic/claude-3-haiku-2024"), ProviderOptions(environ=env)
    )
    assert config.base_url == "http://proxy:9"
    assert config.context_window == 200_000
    assert config.max_output_tokens == 4096
    custom = ProviderOptions(environ=KEY_ENV, context_window=50_000, max_output_tokens=300)
    config = resolve_anthropic_config(parse_handle("anthropic/claude-x"), custom)
    assert (config.context_window, config.max_output_tokens) == (50_000, 300)


def test_anthropic_bad_base_url_is_a_usage_error():
    from mini_letta.errors import InvalidValueError

    with pytest.raises(InvalidValueError, match="not an http"):
        resolve_anthropic_config(
            parse_handle("anthropic/claude-x"), ProviderOptions(environ=KEY_ENV, base_url="x")
        )


def _anthropic(scripted_server, clock, ttl=None):
    options = ProviderOptions(
        environ=KEY_ENV, base_url=scripted_server.url, clock=clock, cache_ttl=ttl
    )
    return build_provider("anthropic/claude-sonnet-4-5", options)


def _long_history() -> tuple[Message, ...]:
    calls = (ToolCall("c1", "Grep", "{}"),)
    return (
        _msg("m1", "user", "first"),
        _msg("m2", "assistant", "answer"),
        _msg("r3", "user", "<system-reminder>x</system-reminder>"),
        _msg("m3", "user", "second"),
        _msg("m4", "assistant", "", tool_calls=calls),
        _msg("m5", "tool", "found", tool_call_id="c1", name="Grep"),
    )


@pytest.mark.parametrize("ttl", [None, "1h"])
def test_anthropic_breakpoints_on_the_prefix_and_the_last_two_user_turns(
    scripted_server, clock, ttl
):
    """System (with the tools before it), the whole request, and where the last one ended."""
    provider = _anthropic(scripted_server, clock, ttl)
    scripted_server.queue(anthropic_stream("done"), anthropic_stream("hi"))
    collect(provider.stream(_request(*_long_history())))
    collect(provider.stream(_request(_msg("m1", "user", "hi"))))
    close_provider(provider)
    long, short = (cache_breakpoints(r.body) for r in scripted_server.requests)
    want = "1h" if ttl else "5m"
    # turns: 0 user, 1 assistant, 2 user (reminder + second), 3 assistant, 4 user (result)
    assert long == [("system", 0, 0, want), ("messages", 2, 0, want), ("messages", 4, 0, want)]
    assert short == [("system", 0, 0, want), ("messages", 0, 0, want)]
    marker = scripted_server.requests[0].body["messages"][4]["content"][-1]["cache_control"]
    assert marker == ({"type": "ephemeral", "ttl": "1h"} if ttl else {"type": "ephemeral"})


def test_anthropic_without_a_system_prompt_marks_the_last_tool(scripted_server, clock):
    provider = _anthropic(scripted_server, clock)
    scripted_server.queue(anthropic_stream("ok"))
    request = ModelRequest("", (_msg("m1", "user", "hi"),), (GREP,))
    collect(provider.stream(request))
    close_provider(provider)
    body = scripted_server.requests[0].body
    assert "system" not in body
    assert cache_breakpoints(body) == [("tools", 0, 0, "5m"), ("messages", 0, 0, "5m")]


@pytest.mark.parametrize("purpose", ["chat", "reflection"])
def test_anthropic_reads_cache_reads_and_writes(provider, scripted_server, purpose):
    reply = anthropic_stream if purpose == "chat" else anthropic_message
    scripted_server.queue(reply("ok", usage=(12, 3), cache=(1800, 200)))
    usage = collect(provider.stream(_request(purpose=purpose))).usage
    assert usage.input_tokens == 12 + 1800 + 200  # what the context holds
    assert (usage.cache_read_tokens, usage.cache_write_tokens, usage.output_tokens) == (
        1800, 200, 3,
    )  # fmt: skip


def test_the_scripted_server_refuses_what_the_api_would():
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    hour = {**marked, "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    five = {"system": [marked], "messages": [{"role": "user", "content": [marked] * 4}]}
    assert "5 cache breakpoints" in breakpoint_problem(five)
    late = {"system": [marked], "messages": [{"role": "user", "content": [hour]}]}
    assert "1h breakpoint after a 5m" in breakpoint_problem(late)
    assert breakpoint_problem({"system": [hour], "messages": [{"content": [marked]}]}) is None


@pytest.mark.parametrize("purpose", ["chat", "summary"])
def test_a_temperature_reaches_the_api_whatever_the_installed_sdk_accepts(
    scripted_server, clock, purpose
):
    """The installed SDK's `Messages.create` may not name `temperature`; it is sent anyway (as
    an extra body field) instead of failing every turn with a TypeError."""
    built = build_provider(
        "anthropic/claude-sonnet-4-5",
        ProviderOptions(
            environ=KEY_ENV, base_url=scripted_server.url, clock=clock, temperature=0.3
        ),
    )
    try:
        reply = anthropic_stream("ok") if purpose == "chat" else anthropic_message("ok")
        scripted_server.queue(reply)
        response = collect(built.stream(_request(purpose=purpose)))
    finally:
        close_provider(built)
    assert response.text == "ok"
    assert scripted_server.requests[-1].body["temperature"] == 0.3
