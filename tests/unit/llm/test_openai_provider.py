"""openai/ and the local presets, driven through the real openai SDK against the scripted server."""

from __future__ import annotations

import pytest

from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    InvalidValueError,
    MissingKeyError,
    QuotaError,
    TransientError,
    UnknownModelError,
    UnreachableError,
)
from mini_letta.llm.base import (
    ModelRequest,
    ReasoningDelta,
    TextDelta,
    ToolSpec,
    close_provider,
    collect,
)
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.openai_provider import resolve_openai_config
from mini_letta.llm.registry import ProviderOptions, build_provider
from support.groups import SDK
from support.scripted_server import (
    Reply,
    openai_completion,
    openai_error,
    openai_stream,
    openai_tool_call,
)

pytestmark = SDK

KEY_ENV = {"OPENAI_API_KEY": "sk-test-dummy"}
READ = ToolSpec(
    "Read",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def _user(text: str, mid: str = "m1") -> Message:
    return Message(mid, "user", text, "2026-01-01T00:00:00.000Z")


def _request(*messages: Message, purpose: str = "chat", tools=(READ,)) -> ModelRequest:
    return ModelRequest("You are terse.", messages or (_user("hi"),), tools, purpose)  # type: ignore[arg-type]


@pytest.fixture
def provider(scripted_server, clock):
    built = build_provider(
        "openai/gpt-4o",
        ProviderOptions(environ=KEY_ENV, base_url=scripted_server.url, clock=clock),
    )
    yield built
    close_provider(built)


def test_openai_streams_text_tool_calls_and_usage(provider, scripted_server):
    call = openai_tool_call("call_1", "Read", '{"path": "README.md"}')
    scripted_server.queue(openai_stream("Let me read it.", [call], usage=(30, 9)))
    events = list(provider.stream(_request()))
    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == "Let me read it."
    response = collect(iter(events))
    assert response.tool_calls == (ToolCall("call_1", "Read", '{"path": "README.md"}'),)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (30, 9)
    assert response.stop_reason == "tool_use"
    request = scripted_server.requests[-1]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-dummy"
    assert request.headers["x-stainless-retry-count"] == "0"
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning", "both"])
def test_openai_streams_a_servers_reasoning_before_its_answer(provider, scripted_server, field):
    reply = openai_stream("It is 4.", reasoning="2 and 2 make 4.", reasoning_field="reasoning")
    if field != "reasoning":  # DeepSeek's name; newer vLLM sends both with the same text
        for _, chunk in reply.sse or ():
            for choice in chunk["choices"] if isinstance(chunk, dict) else ():
                delta = choice["delta"]
                if "reasoning" in delta:
                    delta["reasoning_content"] = delta["reasoning"]
                    if field == "reasoning_content":
                        del delta["reasoning"]
    scripted_server.queue(reply)
    events = list(provider.stream(_request()))
    is_text = [
        isinstance(e, TextDelta) for e in events if isinstance(e, ReasoningDelta | TextDelta)
    ]
    assert is_text == sorted(is_text) and not is_text[0] and is_text[-1]  # reasoning, then text
    thought = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert thought == "2 and 2 make 4."  # once, though a server sent it under both names
    assert collect(iter(events)).text == "It is 4."  # the answer is the content alone


def test_openai_request_carries_system_tools_and_tool_history(provider, scripted_server):
    scripted_server.queue(openai_stream("ok"))
    history = (
        _user("read it", "m1"),
        Message(
            "m2",
            "assistant",
            "",
            "t",
            tool_calls=(ToolCall("c1", "Read", '{"path": "a"}'), ToolCall("c2", "Read", "{bad")),
        ),
        Message("m3", "tool", "file body", "t", tool_call_id="c1", name="Read"),
    )
    collect(provider.stream(_request(*history)))
    body = scripted_server.requests[-1].body
    assert body["model"] == "gpt-4o"
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert body["messages"][1] == {"role": "user", "content": "read it"}
    assistant = body["messages"][2]
    # a call whose arguments are not JSON is told as text with its result, never replayed as {}
    assert assistant["content"].startswith("(called Read with '{bad'")
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == ['{"path": "a"}']
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "file body"}
    assert len(body["messages"]) == 4


def test_a_call_to_an_undeclared_tool_is_never_replayed_as_a_call(provider, scripted_server):
    scripted_server.queue(openai_stream("ok"))
    history = (
        _user("do it", "m1"),
        Message("m2", "assistant", "", "t", tool_calls=(ToolCall("c9", "Frobnicate", "{}"),)),
        Message("m3", "tool", "UnknownTool: no tool named 'Frobnicate'", "t", tool_call_id="c9"),
        _user("and now?", "m4"),
    )
    collect(provider.stream(_request(*history)))
    body = scripted_server.requests[-1].body
    names = [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls") or []]
    assert "Frobnicate" not in names
    assert all(m["role"] != "tool" for m in body["messages"])
    assert "(called Frobnicate with '{}': UnknownTool" in body["messages"][2]["content"]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Read",
                "description": "Read a file.",
                "parameters": READ.parameters,
            },
        }
    ]


def test_openai_non_chat_purpose_uses_one_plain_call(provider, scripted_server):
    call = openai_tool_call("c9", "Read", '{"path": "x"}')
    scripted_server.queue(openai_completion("a summary", [call], usage=(40, 4)))
    response = collect(provider.stream(_request(purpose="summary")))
    assert response.text == "a summary"
    assert response.tool_calls == (ToolCall("c9", "Read", '{"path": "x"}'),)
    assert response.usage.input_tokens == 40
    assert "stream" not in scripted_server.requests[-1].body


@pytest.mark.parametrize(
    ("finish", "expected"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("content_filter", "end_turn")],
    ids=["stop", "length", "content-filter"],
)
def test_openai_finish_reasons_map_to_stop_reasons(provider, scripted_server, finish, expected):
    scripted_server.queue(openai_stream("x", finish_reason=finish))
    assert collect(provider.stream(_request())).stop_reason == expected


def test_openai_429_is_retried_after_retry_after(provider, scripted_server, clock):
    scripted_server.queue(
        openai_error(429, "Rate limit reached", type="requests", headers={"retry-after": "7"}),
        openai_stream("finally"),
    )
    assert collect(provider.stream(_request())).text == "finally"
    assert clock.sleeps == [7.0]
    assert len(scripted_server.requests) == 2


def test_openai_server_errors_back_off_exponentially_then_give_up(provider, scripted_server, clock):
    scripted_server.queue(*[openai_error(500, "boom", type="server_error") for _ in range(4)])
    with pytest.raises(TransientError, match="gave up after 4 attempts"):
        collect(provider.stream(_request()))
    assert clock.sleeps == [1.0, 2.0, 4.0]


def test_openai_dropped_connection_before_any_output_is_retried(provider, scripted_server, clock):
    scripted_server.queue(Reply(drop=True), openai_stream("after the drop"))
    assert collect(provider.stream(_request())).text == "after the drop"
    assert clock.sleeps == [1.0]


def test_openai_drop_after_output_is_not_retried(provider, scripted_server, clock):
    stream = openai_stream("a long enough answer", chunk_size=2)
    scripted_server.queue(Reply(sse=stream.sse, drop_after=4))
    seen: list[str] = []
    with pytest.raises(TransientError, match="connection .* broke"):
        for event in provider.stream(_request()):
            if isinstance(event, TextDelta):
                seen.append(event.text)
    assert seen  # output had started, so a retry would have duplicated it
    assert clock.sleeps == []
    assert len(scripted_server.requests) == 1


def test_openai_error_event_inside_the_stream(provider, scripted_server):
    error = {"error": {"message": "This model's maximum context length is 8192 tokens"}}
    scripted_server.queue(Reply(sse=[(None, error)]))
    with pytest.raises(ContextOverflowError, match="stream .* reported an error"):
        collect(provider.stream(_request()))


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (openai_error(400, "bad field 'x'"), BadRequestError),
        (
            openai_error(
                400,
                "This model's maximum context length is 128000 tokens. You requested 130000",
                code="context_length_exceeded",
            ),
            ContextOverflowError,
        ),
        (openai_error(413, "Request too large"), ContextOverflowError),
        (openai_error(401, "Incorrect API key provided"), AuthError),
        (openai_error(403, "Project does not have access"), AuthError),
        (openai_error(404, "The model `gpt-9` does not exist"), UnknownModelError),
        (
            openai_error(429, "You exceeded your current quota", code="insufficient_quota"),
            QuotaError,
        ),
        (openai_error(422, "unprocessable"), BadRequestError),
    ],
    ids=["400", "400-overflow", "413", "401", "403", "404", "429-quota", "422"],
)
def test_openai_http_errors_map_to_our_kinds_without_retry(
    provider, scripted_server, clock, reply, kind
):
    scripted_server.queue(reply)
    with pytest.raises(kind) as caught:
        collect(provider.stream(_request()))
    assert clock.sleeps == []
    message = str(caught.value)
    assert "\n" not in message and message.startswith("openai/gpt-4o: ")
    assert not type(caught.value).__module__.startswith("openai")
    assert caught.value.__cause__ is not None  # raised from the SDK error


@pytest.mark.parametrize("status", [408, 409, 500, 502, 503, 504], ids=str)
def test_openai_transient_statuses_are_retried(provider, scripted_server, clock, status):
    scripted_server.queue(openai_error(status, "try again", type="server_error"))
    scripted_server.queue(openai_stream("ok"))
    assert collect(provider.stream(_request())).text == "ok"
    assert clock.sleeps == [1.0]


def test_openai_auth_error_names_the_key_variable(provider, scripted_server):
    scripted_server.queue(openai_error(401, "Incorrect API key provided"))
    with pytest.raises(AuthError, match="check OPENAI_API_KEY"):
        collect(provider.stream(_request()))


def test_unreachable_server_is_one_line_naming_the_url(clock):
    provider = build_provider(
        "ollama/llama3.2", ProviderOptions(base_url="http://127.0.0.1:9", clock=clock)
    )
    with pytest.raises(UnreachableError) as caught:
        collect(provider.stream(_request()))
    assert "http://127.0.0.1:9/v1" in str(caught.value) and "\n" not in str(caught.value)
    assert clock.sleeps == []  # nothing listens: retrying would only make the user wait


def test_openai_without_key_names_the_variable():
    with pytest.raises(MissingKeyError) as caught:
        build_provider("openai/gpt-4o", ProviderOptions(environ={}))
    assert caught.value.env_var == "OPENAI_API_KEY"
    assert "OPENAI_API_KEY" in str(caught.value)


@pytest.mark.parametrize(
    ("handle", "url", "window"),
    [
        ("ollama/qwen3", "http://localhost:11434/v1", 32_768),
        ("llamacpp/any", "http://localhost:8080/v1", 32_768),
        ("lmstudio/any", "http://localhost:1234/v1", 32_768),
        ("vllm/meta/llama", "http://localhost:8000/v1", 32_768),
        ("openai/gpt-4o-mini", "https://api.openai.com/v1", 128_000),
        ("openai/gpt-4.1", "https://api.openai.com/v1", 1_047_576),
        ("openai/my-finetune", "https://api.openai.com/v1", 128_000),
    ],
    ids=["ollama", "llamacpp", "lmstudio", "vllm", "gpt-4o-mini", "gpt-4.1", "unknown"],
)
def test_presets_need_no_key_and_know_their_url_and_window(handle, url, window):
    env = KEY_ENV if handle.startswith("openai/") else {}
    config = resolve_openai_config(parse_handle(handle), ProviderOptions(environ=env))
    assert (config.base_url, config.context_window) == (url, window)


def test_base_url_precedence_and_normalisation():
    handle = parse_handle("openai/m")
    env = {"OPENAI_BASE_URL": "http://env-host:1/v1", "OPENAI_API_KEY": "k"}
    assert resolve_openai_config(handle, ProviderOptions(environ=env)).base_url == (
        "http://env-host:1/v1"
    )
    flagged = ProviderOptions(environ=env, base_url="http://flag-host:2/")
    assert resolve_openai_config(handle, flagged).base_url == "http://flag-host:2/v1"
    # A self-hosted server needs no key.
    local = ProviderOptions(environ={}, base_url="http://127.0.0.1:5/custom/path")
    config = resolve_openai_config(handle, local)
    assert config.base_url == "http://127.0.0.1:5/custom/path" and config.api_key == "not-needed"


@pytest.mark.parametrize("url", ["localhost:11434", "ftp://x/v1", "http://"], ids=str)
def test_bad_base_url_is_a_usage_error(url):
    with pytest.raises(InvalidValueError, match="not an http"):
        resolve_openai_config(parse_handle("ollama/x"), ProviderOptions(base_url=url))


def test_context_window_option_overrides_the_table():
    options = ProviderOptions(environ=KEY_ENV, context_window=4096)
    assert resolve_openai_config(parse_handle("openai/gpt-4o"), options).context_window == 4096


def test_max_tokens_name_depends_on_the_server(scripted_server, clock):
    local = build_provider(
        "vllm/m",
        ProviderOptions(base_url=scripted_server.url, max_output_tokens=77, temperature=0.2),
    )
    scripted_server.queue(openai_stream("ok"))
    collect(local.stream(_request()))
    body = scripted_server.requests[-1].body
    assert body["max_tokens"] == 77 and body["temperature"] == 0.2
    assert "max_completion_tokens" not in body
    remote = resolve_openai_config(parse_handle("openai/o3"), ProviderOptions(environ=KEY_ENV))
    assert remote.is_openai


@pytest.mark.parametrize("purpose", ["chat", "summary"])
def test_openai_reads_cached_tokens_when_the_server_sends_them(provider, scripted_server, purpose):
    reply = openai_stream if purpose == "chat" else openai_completion
    scripted_server.queue(reply("ok", usage=(2000, 5), cached=1536), reply("ok", usage=(9, 2)))
    usage = collect(provider.stream(_request(purpose=purpose))).usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (
        2000, 1536, 0,
    )  # fmt: skip
    plain = collect(provider.stream(_request(purpose=purpose))).usage  # no details: no cache
    assert (plain.input_tokens, plain.cache_read_tokens) == (9, 0)
