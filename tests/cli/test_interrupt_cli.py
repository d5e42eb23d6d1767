"""Ctrl-C during a real model call: exit 130, and the user's message is kept."""

from __future__ import annotations

import json

from support.interrupt import interrupt_during_model_call
from support.scripted_server import Reply, openai_stream


def test_sigint_while_waiting_for_the_model_exits_130_and_keeps_the_message(
    cli, scripted_server, home, project
):
    delayed = openai_stream("too late")
    scripted_server.queue(Reply(sse=delayed.sse, delay=60))
    args = ["chat", "-p", "keep me", "--model", "openai/x"]
    child = interrupt_during_model_call(
        args, home=home.root, cwd=project, server=scripted_server, asking="keep me"
    )
    assert child.code == 130, child.stderr
    assert "Traceback" not in child.stderr
    assert child.stderr.strip().endswith("mini-letta: interrupted")
    assert child.stdout == ""
    (log,) = home.root.glob("agents/*/conversations/*/messages.jsonl")
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(m["role"], m["content"]) for m in messages] == [("user", "keep me")]
    record = json.loads((log.parent / "conversation.json").read_text())
    assert record["lastTurn"]["stopReason"] == "interrupted"
    # The conversation is usable again straight away (no stale lock).
    again = cli("chat", "-p", "after", "--model", "mock")
    assert again.code == 0, again.stderr
