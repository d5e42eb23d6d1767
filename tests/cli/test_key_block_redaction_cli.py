"""A private key cut off before its END line, read by a tool in a real-model turn: its body
reaches neither the tool result shown, nor the conversation log, nor the provider's next
request (the scripted server records it)."""

from __future__ import annotations

import json

import pytest

from support.groups import SDK
from support.scripted_server import openai_stream, openai_tool_call

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = [SDK, pytest.mark.usefixtures("project_agent")]

BODY = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "QyNTUxOQAAACDnY2xv6sZBrFz0Ml1oQ0Y7vH0w5d9hQm3c1zIfaqKq0QAAAJgyQ0uoMkNL",
]


def test_key_block_without_end_never_reaches_the_log_the_output_or_the_provider(
    cli, scripted_server, home, project
):
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(BODY) + "\n"
    (project / "id_ed25519").write_text(key + "\n(the rest was not copied)\n")
    call = openai_tool_call("call_1", "Read", '{"path": "id_ed25519"}')
    scripted_server.queue(openai_stream("Reading.", [call]), openai_stream("It is a key."))
    env = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url + "/v1"}
    result = cli(
        "chat",
        "-p",
        "what is in id_ed25519?",
        "--model",
        "openai/gpt-4o-mini",
        "--output-format",
        "stream-json",
        env=env,
    )
    assert result.code == 0, result.stderr
    sent = json.dumps(scripted_server.requests[1].body)
    (log,) = home.root.glob("agents/*/conversations/*/messages.jsonl")
    for text in (result.stdout, sent, log.read_text(encoding="utf-8")):
        assert not any(line[:24] in text for line in BODY)
        assert "redacted:private-key" in text and "the rest was not copied" in text
