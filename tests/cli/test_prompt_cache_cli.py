"""A cacheable request through the CLI: a stable system prompt, recompile points, cache figures,
and one message per role turn for every kind of request (the scripted server checks that)."""

from __future__ import annotations

import json

import pytest

from support.groups import SDK
from support.scripted_server import (
    anthropic_stream,
    cache_breakpoints,
    openai_completion,
    openai_stream,
    openai_tool_call,
)

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = [SDK, pytest.mark.usefixtures("project_agent")]


def _env(server) -> dict[str, str]:
    return {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": server.url + "/v1"}


def _chat(cli, server, text, *flags):
    result = cli("chat", "-p", text, "--model", "openai/gpt-4o-mini", *flags, env=_env(server))
    assert result.code == 0, result.stderr
    return result


def _system(recorded) -> str:
    first = recorded.body["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def test_own_memory_edit_keeps_the_prompt_until_recompile(cli, scripted_server):
    args = json.dumps(
        {
            "command": "insert",
            "path": "system/human.md",
            "content": "- likes owls",
            "reason": "owls",
        }
    )
    scripted_server.queue(
        openai_stream("", [openai_tool_call("call_1", "memory", args)]),
        openai_stream("Noted."),
        openai_stream("Hello again."),
        openai_stream("Fresh."),
    )
    _chat(cli, scripted_server, "I like owls")
    _chat(cli, scripted_server, "hi")
    _chat(cli, scripted_server, "and now?", "--recompile")
    systems = [_system(r) for r in scripted_server.requests]
    assert systems[0] == systems[1] == systems[2] and "likes owls" not in systems[0]
    assert "- likes owls" in systems[3]
    assert "Nothing yet" not in cli("memory", "show", "system/human.md").stdout
    tools = [r.body["tools"] for r in scripted_server.requests]
    assert all(t == tools[0] for t in tools)


def test_cache_figures_in_the_json_result_and_conversations_show(cli, scripted_server):
    scripted_server.queue(
        openai_stream("one", usage=(2000, 5), cached=0),
        openai_stream("two", usage=(2100, 6), cached=1920),
    )
    _chat(cli, scripted_server, "first", "--output-format", "json")
    result = _chat(cli, scripted_server, "second", "--output-format", "json")
    usage = json.loads(result.stdout)["usage"]
    assert usage == {
        "inputTokens": 2100, "outputTokens": 6, "cacheReadTokens": 1920, "cacheWriteTokens": 0,
    }  # fmt: skip
    conv = json.loads(cli("conversations", "list", "--json").stdout)[0]["id"]
    shown = json.loads(cli("conversations", "show", conv, "--json").stdout)
    assert shown["usage"] == {
        "inputTokens": 4100, "outputTokens": 11, "cacheReadTokens": 1920,
        "cacheWriteTokens": 0, "modelCalls": 2,
    }  # fmt: skip
    assert shown["messages"][-1]["usage"]["cacheReadTokens"] == 1920  # stored with the turn
    text = cli("conversations", "show", conv).stdout
    assert "prompt cache: 1920 read (46% of input), 0 written" in text


def test_anthropic_cache_writes_reach_the_result(cli, scripted_server):
    scripted_server.queue(anthropic_stream("hi", usage=(10, 2), cache=(0, 1500)))
    env = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": scripted_server.url}
    result = cli(
        "chat", "-p", "hi", "--model", "anthropic/claude-sonnet-4-5", "--output-format", "json",
        env=env,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    usage = json.loads(result.stdout)["usage"]
    assert (usage["inputTokens"], usage["cacheWriteTokens"]) == (1510, 1500)


def test_interactive_status_and_recompile(cli):
    result = cli(stdin="请记住我用 vim\n/status\n/recompile\nhello\n/status\n/exit\n")
    assert result.code == 0, result.stderr
    err = result.stderr
    assert err.count("memory changed since this conversation's system prompt") == 1
    first, second = result.stdout.split("model calls")[1:3]  # /status prints on stdout
    assert "recompile pending" in first and "up to date" in second
    assert "from the next turn" in err


def test_compaction_and_reflection_requests_have_one_message_per_role(cli, scripted_server):
    """The summariser and the reflection agent on a real-model path (the server checks roles)."""
    env = _env(scripted_server)
    created = cli("agents", "create", "--model", "openai/gpt-4o-mini", env=env)
    assert created.code == 0, created.stderr
    scripted_server.queue(
        openai_stream("First answer."),
        openai_stream("Second answer."),
        openai_completion("A short summary."),
        openai_completion("Nothing worth keeping."),
    )
    assert cli("chat", "-p", "hello there", env=env).code == 0
    assert cli("chat", "-p", "tell me more", env=env).code == 0
    compacted = cli("compact", env=env)
    assert compacted.code == 0, compacted.stderr
    reflected = cli("reflect", env=env)
    assert reflected.code == 0, reflected.stderr
    purposes = [("stream" in r.body, len(r.body["messages"])) for r in scripted_server.requests]
    assert [streamed for streamed, _ in purposes] == [True, True, False, False]


def test_context_view_shows_the_cache_figures(cli, scripted_server):
    """`mini-letta context` and `/context` (the session's context view) show what was cached."""
    scripted_server.queue(
        openai_stream("one", usage=(2000, 5), cached=0),
        openai_stream("two", usage=(2100, 6), cached=1920),
    )
    _chat(cli, scripted_server, "first")
    _chat(cli, scripted_server, "second")
    text = cli("context", env=_env(scripted_server)).stdout
    assert "4100 in, 11 out over 2 model calls; prompt cache: 1920 read (46% of input)" in text
    data = json.loads(cli("context", "--json", env=_env(scripted_server)).stdout)
    assert data["usage"] == {
        "inputTokens": 4100, "outputTokens": 11, "cacheReadTokens": 1920,
        "cacheWriteTokens": 0, "modelCalls": 2,
    }  # fmt: skip
    session = cli(stdin="/context\n/exit\n", env=_env(scripted_server))
    assert "prompt cache: 1920 read" in session.stdout


def test_the_agent_s_prompt_cache_ttl_reaches_every_breakpoint(cli, scripted_server):
    env = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": scripted_server.url}
    created = cli("agents", "create", "--model", "anthropic/claude-sonnet-4-5", env=env)
    assert created.code == 0, created.stderr
    refused = cli("agents", "set", "--prompt-cache-ttl", "2h", env=env)
    assert refused.code == 2 and "Traceback" not in refused.stderr
    assert cli("agents", "set", "--prompt-cache-ttl", "1h", env=env).code == 0
    assert "prompt cache:   1h" in cli("agents", "show", env=env).stdout
    scripted_server.queue(anthropic_stream("one"), anthropic_stream("two"))
    assert cli("chat", "-p", "hello", env=env).code == 0
    assert cli("chat", "-p", "again", env=env).code == 0
    marks = [cache_breakpoints(r.body) for r in scripted_server.requests]
    assert [len(m) for m in marks] == [2, 3]  # system, and the last (two) user turns
    assert {ttl for m in marks for *_, ttl in m} == {"1h"}


def test_the_merge_review_request_has_one_message_per_role(cli, scripted_server):
    """merge=explicit on a real-model path: the reviewer's request passes the server's check."""
    env = _env(scripted_server)
    assert cli("agents", "create", "--model", "openai/gpt-4o-mini", env=env).code == 0
    assert cli("sleeptime", "--merge", "explicit", env=env).code == 0
    edit = {"command": "insert", "path": "system/human.md", "content": "- likes owls"}
    scripted_server.queue(
        openai_stream("Owls, noted."),
        openai_completion("", [openai_tool_call("r1", "memory", json.dumps(edit))]),
        openai_completion("", [openai_tool_call("r2", "memory_commit", '{"message": "owls"}')]),
        openai_completion("Done."),
        openai_completion(
            "", [openai_tool_call("m1", "reflection_merge", '{"decision": "merge"}')]
        ),
        openai_completion("Merged."),
    )
    assert cli("chat", "-p", "I like owls", env=env).code == 0
    reflected = cli("reflect", env=env)
    assert reflected.code == 0, reflected.stderr
    assert "- likes owls" in cli("memory", "show", "system/human.md").stdout
    review = scripted_server.requests[-2].body
    assert [m["role"] for m in review["messages"]] == ["system", "user"]
    assert "reflection_merge" in json.dumps(review["tools"])
