"""The interactive session's start flags and slow slash commands, in a real terminal (tmux)."""

from __future__ import annotations

import json
import termios

import pytest
from tests.support.tmux import TMUX, session_pane
from tests.support.waiting import wait_until

from mini_letta.storage.locks import exclusive_lock

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
    pytest.mark.timeout(120),
]


def _conversations(cli) -> list[dict[str, object]]:
    return list(json.loads(cli("conversations", "list", "--json").stdout))


def test_text_typed_while_a_slash_command_waits_is_not_echoed_and_its_enter_is_kept(
    cli, project, home
):
    assert cli("-p", "first").code == 0
    (conversation,) = _conversations(cli)
    agent = json.loads(cli("agents", "show", "--json").stdout)["id"]
    lock = home.conversation_files(agent, str(conversation["id"])).lock
    with session_pane(home.root, project) as pane:
        with exclusive_lock(lock):  # /compact waits for the conversation's lock: a slow command
            pane.enter("/compact")
            # The command runs (the prompt gave back the terminal, Ctrl-C is a signal again) ...
            wait_until(lambda: pane.tty_flags()[1] & termios.ISIG, "the slash command to run")
            wait_until(
                lambda: not pane.tty_flags()[1] & termios.ECHO,
                "typing to stop echoing while the slash command runs",
                timeout=5,
            )
            pane.type("typed ahead")
            pane.send("Enter")
        pane.wait_for("Nothing to compact yet.")
        screen = pane.wait_for("（mock）我听到了：typed ahead")  # the Enter sent the line
    rows = [row.strip() for row in screen.splitlines()]
    assert "typed ahead" not in rows  # never echoed raw on a line of its own
    assert rows.count("› typed ahead") == 1
