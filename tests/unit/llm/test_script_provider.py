"""script:<path> — replayed responses, validated up front, with errors of every kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mini_letta.conversations.messages import ToolCall, Usage
from mini_letta.errors import (
    AuthError,
    BadRequestError,
    ConfigError,
    ContextOverflowError,
    ProviderError,
    QuotaError,
    TransientError,
    UnknownModelError,
    UnreachableError,
)
from mini_letta.llm.base import ModelRequest, TextDelta, collect
from mini_letta.llm.registry import ProviderOptions, build_provider

REQUEST = ModelRequest("system", ())


def _script(tmp_path: Path, entries: object, name: str = "script.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _provider(path: Path, clock, **options):
    return build_provider(f"script:{path}", ProviderOptions(clock=clock, **options))


def test_script_replays_entries_in_order(tmp_path, clock):
    path = _script(
        tmp_path,
        [
            {
                "text": "checking",
                "toolCalls": [{"name": "Read", "arguments": {"path": "a"}, "id": "r1"}],
                "usage": {"inputTokens": 9, "outputTokens": 2},
            },
            "plain answer",
            {"text": "cut", "stopReason": "max_tokens"},
            {"toolCalls": [{"name": "Bash", "arguments": "{not json"}]},
        ],
    )
    provider = _provider(path, clock)
    first = collect(provider.stream(REQUEST))
    assert first.text == "checking" and first.stop_reason == "tool_use"
    assert first.tool_calls == (ToolCall("r1", "Read", '{"path": "a"}'),)
    assert first.usage == Usage(9, 2)
    second = collect(provider.stream(REQUEST))
    assert (second.text, second.stop_reason) == ("plain answer", "end_turn")
    assert second.usage is not None and second.usage.input_tokens > 0  # estimated
    assert collect(provider.stream(REQUEST)).stop_reason == "max_tokens"
    fourth = collect(provider.stream(REQUEST))
    assert fourth.tool_calls == (ToolCall("call-4-1", "Bash", "{not json"),)
    with pytest.raises(ProviderError, match="no response left"):
        collect(provider.stream(REQUEST))


def test_script_text_streams_in_pieces(tmp_path, clock):
    provider = _provider(_script(tmp_path, ["a streamed answer"]), clock)
    deltas = [e for e in provider.stream(REQUEST) if isinstance(e, TextDelta)]
    assert len(deltas) > 1


def test_script_delay_sleeps_on_the_clock(tmp_path, clock):
    provider = _provider(_script(tmp_path, [{"text": "late", "delay": 2.5}]), clock)
    assert collect(provider.stream(REQUEST)).text == "late"
    assert clock.sleeps == [2.5]


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("overflow", ContextOverflowError),
        ("auth", AuthError),
        ("quota", QuotaError),
        ("bad_request", BadRequestError),
        ("unknown_model", UnknownModelError),
        ("unreachable", UnreachableError),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_script_error_entries_raise_their_kind(tmp_path, clock, kind, error):
    path = _script(tmp_path, [{"error": kind, "message": "scripted trouble"}])
    with pytest.raises(error, match="scripted trouble"):
        collect(_provider(path, clock).stream(REQUEST))


def test_script_transient_errors_go_through_the_retry_policy(tmp_path, clock):
    path = _script(
        tmp_path,
        [{"error": "transient", "retryAfter": 4}, {"error": "transient"}, "recovered"],
    )
    assert collect(_provider(path, clock).stream(REQUEST)).text == "recovered"
    assert clock.sleeps == [4.0, 2.0]


def test_script_error_after_text_is_not_retried(tmp_path, clock):
    path = _script(tmp_path, [{"text": "half an answer", "error": "transient"}, "never"])
    provider = _provider(path, clock)
    with pytest.raises(TransientError):
        collect(provider.stream(REQUEST))
    assert clock.sleeps == []


def test_script_relative_path_is_found_from_the_working_directory(tmp_path, clock):
    _script(tmp_path, ["hello"], "rel.json")
    provider = build_provider("script:rel.json", ProviderOptions(clock=clock, cwd=tmp_path))
    assert collect(provider.stream(REQUEST)).text == "hello"


def test_script_window_honours_the_option(tmp_path, clock):
    provider = _provider(_script(tmp_path, []), clock, context_window=1200)
    assert provider.context_window == 1200


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"a": 1}', "must be a JSON list"),
        ("[1,", "not valid JSON"),
        ("[42]", "entry 1: must be a string or an object"),
        ('["ok", {"txt": "typo"}]', "entry 2: unknown key 'txt'"),
        ('[{"text": 5}]', 'entry 1: "text" must be a string'),
        ('[{"toolCalls": {}}]', 'entry 1: "toolCalls" must be a list'),
        ('[{"toolCalls": [{"arguments": {}}]}]', 'entry 1: tool call 1 needs a string "name"'),
        ('[{"toolCalls": [{"name": "Read", "id": ""}]}]', '"id" must be a non-empty string'),
        ('[{"stopReason": "done"}]', '"stopReason" must be one of'),
        ('[{"error": "explode"}]', '"error" must be one of'),
        ('[{"delay": -1}]', '"delay" must be a number'),
        ('[{"retryAfter": "soon"}]', '"retryAfter" must be a number'),
        ('[{"usage": {"inputTokens": "x"}}]', '"usage": inputTokens must be an integer'),
        ('[{"message": 3, "error": "auth"}]', '"message" must be a string'),
    ],
    ids=[
        "not-list",
        "bad-json",
        "number-entry",
        "unknown-key",
        "text-type",
        "calls-type",
        "call-name",
        "call-id",
        "stop-reason",
        "error-kind",
        "delay",
        "retry-after",
        "usage",
        "message",
    ],
)
def test_bad_script_is_one_line_naming_file_and_entry(tmp_path, clock, content, needle):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        _provider(path, clock)
    message = str(caught.value)
    assert needle in message and str(path) in message and "\n" not in message


def test_missing_script_file(tmp_path, clock):
    with pytest.raises(ConfigError, match="not found"):
        _provider(tmp_path / "nope.json", clock)
