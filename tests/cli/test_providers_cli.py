"""Real-model turns through the CLI: the SDKs talk to the scripted server, tools run for real."""

from __future__ import annotations

import json

import pytest

from support.groups import SDK
from support.scripted_server import (
    anthropic_stream,
    openai_error,
    openai_stream,
    openai_tool_call,
)

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = [SDK, pytest.mark.usefixtures("project_agent")]

OPENAI_ENV = {"OPENAI_API_KEY": "sk-test-dummy"}


def _openai_env(server) -> dict[str, str]:
    return {**OPENAI_ENV, "OPENAI_BASE_URL": server.url + "/v1"}


def test_openai_turn_prints_the_answer(cli, scripted_server):
    scripted_server.queue(openai_stream("Hello from the server."))
    result = cli(
        "chat", "-p", "hi", "--model", "openai/gpt-4o-mini", env=_openai_env(scripted_server)
    )
    assert result.code == 0, result.stderr
    assert result.stdout == "Hello from the server.\n"
    body = scripted_server.requests[0].body
    assert body["model"] == "gpt-4o-mini"
    last = body["messages"][-1]  # the harness's reminder travels in the user's message
    assert last["role"] == "user" and last["content"].startswith("<system-reminder>")
    assert last["content"].endswith("</system-reminder>\n\nhi")
    names = [tool["function"]["name"] for tool in body["tools"]]
    assert names == [
        "Read", "Write", "Edit", "Bash", "Grep", "Glob", "memory",
        "conversation_search", "memory_search",
    ]  # fmt: skip


def test_stream_json_shows_real_tool_calls_as_they_happen(cli, scripted_server, project):
    (project / "notes.txt").write_text("remember the milk\n")
    call = openai_tool_call("call_7", "Read", '{"path": "notes.txt"}')
    scripted_server.queue(openai_stream("Reading.", [call]), openai_stream("It says milk."))
    result = cli(
        "chat",
        "-p",
        "what is in notes.txt?",
        "--model",
        "openai/gpt-4o",
        "--output-format",
        "stream-json",
        env=_openai_env(scripted_server),
    )
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [event["type"] for event in events]
    assert kinds == [
        "system",
        "message",
        "message",
        "tool_call",
        "tool_result",
        "message",
        "message",
        "result",
    ]
    assert "Read" in events[0]["tools"]
    assert events[2]["message"]["toolCalls"][0]["id"] == "call_7"
    assert events[4]["content"] == "     1\tremember the milk" and events[4]["isError"] is False
    assert events[5]["message"]["role"] == "tool"
    assert events[-1]["result"] == "It says milk." and events[-1]["steps"] == 2
    followup = scripted_server.requests[1].body["messages"]
    assert followup[-1] == {
        "role": "tool",
        "tool_call_id": "call_7",
        "content": "     1\tremember the milk",
    }


def test_anthropic_turn(cli, scripted_server):
    scripted_server.queue(anthropic_stream("Bonjour."))
    env = {"ANTHROPIC_API_KEY": "sk-ant-dummy", "ANTHROPIC_BASE_URL": scripted_server.url}
    result = cli("chat", "-p", "salut", "--model", "anthropic/claude-sonnet-4-5", env=env)
    assert result.code == 0, result.stderr
    assert result.stdout == "Bonjour.\n"
    assert scripted_server.requests[0].path == "/v1/messages"


def test_agent_model_settings_come_from_agent_json(cli, scripted_server, home):
    created = cli(
        "agents",
        "create",
        "--name",
        "local",
        "--model",
        "vllm/qwen",
        "--base-url",
        scripted_server.url,
        "--max-output-tokens",
        "321",
        "--temperature",
        "0.4",
        "--tools",
        "Read,Grep",
        "--json",
    )
    assert created.code == 0, created.stderr
    record = json.loads(created.stdout)
    assert (record["model"], record["baseUrl"], record["tools"]) == (
        "vllm/qwen",
        scripted_server.url,
        ["Read", "Grep"],
    )
    scripted_server.queue(openai_stream("from vllm"))
    result = cli("chat", "-p", "hi")
    assert result.code == 0, result.stderr
    body = scripted_server.requests[0].body
    assert (body["model"], body["max_tokens"], body["temperature"]) == ("qwen", 321, 0.4)
    assert [tool["function"]["name"] for tool in body["tools"]] == ["Read", "Grep"]
    assert scripted_server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_agents_set_changes_the_model(cli, scripted_server):
    cli("agents", "create", "--name", "a1")
    changed = cli("agents", "set", "--model", "ollama/llama3.2", "--base-url", scripted_server.url)
    assert changed.code == 0, changed.stderr
    assert "--model" in changed.stdout and "--base-url" in changed.stdout
    scripted_server.queue(openai_stream("llama says hi"))
    assert cli("chat", "-p", "hi").stdout == "llama says hi\n"
    assert scripted_server.requests[0].body["model"] == "llama3.2"


def test_a_new_provider_gets_its_own_url_unless_one_is_given(cli, scripted_server):
    """`agents set --model` to another provider drops the old server's URL (requests would
    go there); the same provider keeps it, and a given --base-url always wins."""
    created = ["agents", "create", "--name", "a1", "--model", "vllm/qwen"]
    assert cli(*created, "--base-url", scripted_server.url).code == 0

    def base_url() -> str | None:
        return json.loads(cli("agents", "show", "--json").stdout).get("baseUrl")

    same = cli("agents", "set", "--model", "vllm/qwen2")
    assert same.code == 0 and base_url() == scripted_server.url
    scripted_server.queue(openai_stream("still vllm"))
    assert cli("chat", "-p", "hi").stdout == "still vllm\n"
    moved = cli("agents", "set", "--model", "ollama/llama3.2")
    assert moved.code == 0, moved.stderr
    assert base_url() is None  # ollama's own default, http://localhost:11434/v1
    assert "ollama's default URL" in moved.stdout
    given = cli("agents", "set", "--model", "lmstudio/m", "--base-url", scripted_server.url)
    assert given.code == 0 and base_url() == scripted_server.url


def test_tools_flag_and_context_window(cli, scripted_server):
    scripted_server.queue(openai_stream("no tools"))
    result = cli(
        "chat",
        "-p",
        "hi",
        "--model",
        "openai/gpt-4o",
        "--tools",
        "",
        "--context-window",
        "2000",
        env=_openai_env(scripted_server),
    )
    assert result.code == 0, result.stderr
    assert "tools" not in scripted_server.requests[0].body


def test_headless_denial_is_reported_and_the_turn_goes_on(cli, scripted_server, project):
    call = openai_tool_call("c1", "Bash", '{"command": "touch pwned"}')
    scripted_server.queue(openai_stream("", [call]), openai_stream("I could not run it."))
    result = cli("chat", "-p", "run it", "--model", "openai/x", env=_openai_env(scripted_server))
    assert result.code == 0, result.stderr
    assert result.stdout == "I could not run it.\n"
    assert "needs approval and this run is headless" in result.stderr
    assert not (project / "pwned").exists()
    sent = scripted_server.requests[1].body["messages"][-1]
    assert sent["role"] == "tool" and "--allowed-tools Bash" in sent["content"]


def test_allowed_tools_lets_a_command_run_headless(cli, scripted_server, project):
    call = openai_tool_call("c1", "Bash", '{"command": "touch made"}')
    scripted_server.queue(openai_stream("", [call]), openai_stream("Done."))
    args = ["chat", "-p", "go", "--model", "openai/x", "--allowed-tools", "Bash"]
    result = cli(*args, env=_openai_env(scripted_server))
    assert result.code == 0, result.stderr
    assert (project / "made").exists()


def test_retry_is_visible_on_stderr(cli, scripted_server):
    scripted_server.queue(
        openai_error(429, "Slow down", type="requests", headers={"retry-after": "0"}),
        openai_stream("made it"),
    )
    result = cli("chat", "-p", "hi", "--model", "openai/x", env=_openai_env(scripted_server))
    assert result.code == 0, result.stderr
    assert result.stdout == "made it\n"
    assert "HTTP 429" in result.stderr and "retrying in 0s" in result.stderr


def test_failed_turn_keeps_the_user_message_and_exits_1(cli, scripted_server):
    scripted_server.queue(openai_error(401, "Incorrect API key provided: sk-test"))
    result = cli(
        "chat",
        "-p",
        "hi",
        "--model",
        "openai/x",
        "--output-format",
        "json",
        env=_openai_env(scripted_server),
    )
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data["stopReason"] == "error" and "check OPENAI_API_KEY" in data["error"]
    shown = cli("conversations", "show", data["conversationId"], "--json")
    assert [m["content"] for m in json.loads(shown.stdout)["messages"]] == ["hi"]


def test_connection_dropped_mid_answer_keeps_what_was_shown(cli, scripted_server):
    stream = openai_stream("The answer is forty", chunk_size=5)
    stream.drop_after = 4
    scripted_server.queue(stream)
    args = ["chat", "-p", "q", "--model", "openai/x", "--output-format", "json"]
    result = cli(*args, env=_openai_env(scripted_server))
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data["stopReason"] == "error" and "broke" in data["error"]
    shown = json.loads(cli("conversations", "show", data["conversationId"], "--json").stdout)
    assert [m["content"] for m in shown["messages"]] == ["q", "The answer is f"]
    assert len(scripted_server.requests) == 1  # output had started: no retry


def test_missing_key_names_the_variable(cli):
    result = cli("chat", "-p", "hi", "--model", "openai/gpt-4o")
    assert result.code == 1
    assert result.stderr.strip() == (
        "mini-letta: OPENAI_API_KEY is not set (export it to use openai/gpt-4o, "
        "or use --model mock)"
    )


def test_unreachable_server_is_one_clear_line(cli):
    result = cli("chat", "-p", "hi", "--model", "lmstudio/m", "--base-url", "http://127.0.0.1:9")
    assert result.code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach http://127.0.0.1:9/v1" in lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--permission-mode", "yolo"], "'default', 'acceptEdits', 'bypassPermissions', 'plan'"),
        (["--context-window", "0"], "--context-window"),
        (["--context-window", "many"], "--context-window"),
        (["--tools", "Read,Teleport"], "unknown tool 'Teleport' in --tools"),
        (["--allowed-tools", "rm"], "unknown tool 'rm' in --allowed-tools"),
        (["--disallowed-tools", "x"], "in --disallowed-tools"),
        (["--input-format", "xml"], "'text', 'stream-json'"),
        (["--input-format", "stream-json"], "exclude each other"),
        (["--base-url", "localhost:1234", "--model", "ollama/x"], "not an http"),
    ],
    ids=[
        "permission-mode",
        "window-zero",
        "window-text",
        "tools",
        "allowed",
        "disallowed",
        "input-format",
        "prompt-and-stream-input",
        "base-url",
    ],
)
def test_bad_flags_exit_2_with_the_allowed_values(cli, args, needle):
    result = cli("chat", "-p", "hi", *args)
    assert result.code == 2, result.stderr
    assert needle in result.stderr


def test_bad_script_file_names_the_entry(cli, project):
    (project / "s.json").write_text('["fine", {"toolCalls": [{"arguments": {}}]}]')
    result = cli("chat", "-p", "hi", "--model", "script:s.json")
    assert result.code == 1
    assert "s.json: entry 2: tool call 1 needs a string" in result.stderr


def test_script_model_runs_tools_reproducibly(cli, project):
    script = [
        {"toolCalls": [{"name": "Write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
        "Wrote it.",
    ]
    (project / "s.json").write_text(json.dumps(script))
    args = ["chat", "-p", "write", "--model", "script:s.json", "--permission-mode", "acceptEdits"]
    result = cli(*args)
    assert result.code == 0, result.stderr
    assert result.stdout == "Wrote it.\n"
    assert (project / "out.txt").read_text() == "hi\n"
