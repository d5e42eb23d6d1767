"""Ctrl-C during a real model call: exit 130, and the user's message is kept."""

from __future__ import annotations

import json
import subprocess
import sys

from support.cli import cli_env
from support.interrupt import SHARES_THE_FORKER, interrupt_during_model_call
from support.scripted_server import Reply, openai_stream


@SHARES_THE_FORKER
def test_sigint_while_waiting_for_the_model_exits_130_and_keeps_the_message(
    cli, scripted_server, home, project, model_commands, tmp_path
):
    delayed = openai_stream("too late")
    scripted_server.queue(Reply(sse=delayed.sse, delay=60))
    args = ["chat", "-p", "keep me", "--model", "openai/x"]
    child = interrupt_during_model_call(
        args,
        commands=model_commands,
        home=home.root,
        cwd=project,
        folder=tmp_path / "child",
        server=scripted_server,
        asking="keep me",
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


# Ctrl-C landing where Python cannot raise it (a finaliser, an import lock's callback, pydantic
# building a validator as the model SDK is imported: all seen in a full-suite run) is printed as
# "Exception ignored" and swallowed. Made certain here: while `openai` is being imported, an
# object whose finaliser raises KeyboardInterrupt is dropped, as the signal would land there.
SWALLOWED_CTRL_C = """
import sys

class Finaliser:
    def __del__(self):
        raise KeyboardInterrupt

class WhileImporting:
    def find_spec(self, name, path=None, target=None):
        if name == "openai":
            Finaliser()  # dropped at once: its KeyboardInterrupt is "ignored"
        return None

sys.meta_path.insert(0, WhileImporting())
sys.argv[0] = "mini-letta"
from mini_letta.cli.main import run
run()
"""


def test_a_ctrl_c_python_would_ignore_still_stops_the_turn(scripted_server, home, project):
    keys = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url}
    child = subprocess.run(
        [sys.executable, "-c", SWALLOWED_CTRL_C, "chat", "-p", "keep me", "--model", "openai/x"],
        cwd=project,
        env=cli_env(home.root, keys),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 130, child.stderr
    assert child.stderr.strip() == "mini-letta: interrupted", child.stderr
    assert scripted_server.requests == []  # stopped before it asked the model
    (log,) = home.root.glob("agents/*/conversations/*/messages.jsonl")
    assert [json.loads(line)["content"] for line in log.read_text().splitlines()] == ["keep me"]
