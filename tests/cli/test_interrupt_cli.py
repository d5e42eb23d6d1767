"""Ctrl-C during a real model call: exit 130, and the user's message is kept."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

from support.cli import cli_env
from support.scripted_server import Reply, openai_stream
from support.waiting import wait_until


def test_sigint_while_waiting_for_the_model_exits_130_and_keeps_the_message(
    cli, scripted_server, home, project
):
    delayed = openai_stream("too late")
    scripted_server.queue(Reply(sse=delayed.sse, delay=60))
    env = cli_env(
        home.root, {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url}
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", "chat", "-p", "keep me", "--model", "openai/x"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: scripted_server.requests, "the CLI to call the model")
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().endswith("mini-letta: interrupted")
    assert out == ""
    (log,) = home.root.glob("agents/*/conversations/*/messages.jsonl")
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(m["role"], m["content"]) for m in messages] == [("user", "keep me")]
    record = json.loads((log.parent / "conversation.json").read_text())
    assert record["lastTurn"]["stopReason"] == "interrupted"
    # The conversation is usable again straight away (no stale lock).
    again = cli("chat", "-p", "after", "--model", "mock")
    assert again.code == 0, again.stderr
