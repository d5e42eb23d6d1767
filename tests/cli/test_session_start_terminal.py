"""The interactive session's start flags and slow slash commands, in a real terminal (tmux)."""

from __future__ import annotations

import json
import termios

import pytest

from mini_letta.storage.locks import exclusive_lock
from support.tmux import TMUX, session_pane
from support.waiting import wait_until

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
    pytest.mark.timeout(120),
    pytest.mark.usefixtures("project_agent"),
]


def _conversations(cli) -> list[dict[str, object]]:
    return list(json.loads(cli("conversations", "list", "--json").stdout))


@pytest.mark.parametrize(
    ("line", "done"),
    [("/compact", "Nothing to compact yet."), ("a turn", "（mock）我听到了：a turn")],
    ids=["slash-command", "turn"],
)
def test_text_typed_while_a_command_waits_is_not_echoed_and_its_enter_is_kept(
    cli, project, home, line, done
):
    assert cli("-p", "first").code == 0
    (conversation,) = _conversations(cli)
    agent = json.loads(cli("agents", "show", "--json").stdout)["id"]
    lock = home.conversation_files(agent, str(conversation["id"])).lock
    with session_pane(home.root, project) as pane:
        with exclusive_lock(lock):  # /compact and a turn wait for it: a slow command
            pane.enter(line)
            # The command runs (the prompt gave back the terminal, Ctrl-C is a signal again) ...
            wait_until(lambda: pane.tty_flags()[1] & termios.ISIG, "the slash command to run")
            wait_until(
                lambda: not pane.tty_flags()[1] & termios.ECHO,
                "typing to stop echoing while the slash command runs",
                timeout=5,
            )
            pane.type("typed ahead")
            pane.send("Enter")
        pane.wait_for(done)
        screen = pane.wait_for("（mock）我听到了：typed ahead")  # the Enter sent the line
    rows = [row.strip() for row in screen.splitlines()]
    assert "typed ahead" not in rows  # never echoed raw on a line of its own
    assert rows.count("› typed ahead") == 1


def test_resume_without_an_id_picks_from_a_list_then_shows_where_it_stopped(cli, project, home):
    assert cli("-p", "first question").code == 0
    assert cli("--new", "-p", "second question").code == 0
    older = next(c for c in _conversations(cli) if c["title"] == "first question")
    with session_pane(home.root, project, args=("-r",), ready=False, width=100) as pane:
        screen = pane.wait_for("Resume which (number, empty to cancel)?")
        rows = [row for row in screen.splitlines() if "msgs" in row]
        assert "2 msgs  second question" in rows[0] and "2 msgs  first question" in rows[1]
        pane.type("2")
        pane.send("Enter")
        pane.wait_for_prompt()
        screen = pane.screen()
        assert f"Resumed conversation {older['id']} (2 messages)." in screen
        assert "  you: first question" in screen
        assert "  agent: （mock）我听到了：first question" in screen
        pane.enter("and more")
        pane.wait_for("我听到了：and more")
        pane.wait_for_prompt()  # the turn is over, its answer recorded, before the pane goes
    counts = {c["title"]: c for c in _conversations(cli)}
    shown = cli("conversations", "show", str(counts["first question"]["id"]), "--json")
    assert json.loads(shown.stdout)["messageCount"] == 4


def test_agent_new_and_model_flags_start_the_session_so(cli, project, home):
    assert cli("agents", "create", "--name", "alpha").code == 0
    assert cli("agents", "create", "--name", "beta").code == 0
    assert cli("-p", "hi", "--agent", "beta").code == 0
    flags = ("--agent", "beta", "--new", "-m", "qwen2.5-coder:7b")
    with session_pane(home.root, project, args=flags, width=100) as pane:
        screen = pane.wait_for("mini-letta · agent beta · ollama/qwen2.5-coder:7b")
        assert "beta · ollama/qwen2.5-coder:7b · context" in screen  # the status line
        pane.enter("/exit")
        wait_until(lambda: not pane.alive(), "the session to leave")
    listed = json.loads(cli("conversations", "list", "--agent", "beta", "--json").stdout)
    assert [c["title"] for c in listed] == ["hi"]  # --new's conversation, unused, is gone


def test_resume_with_nothing_to_pick_starts_the_first_conversation(cli, project, home):
    with session_pane(home.root, project, args=("-r",)) as pane:
        assert "No conversations to resume yet; starting the first one." in pane.screen()
        pane.enter("hello")
        pane.wait_for("我听到了：hello")


def test_an_empty_answer_to_the_picker_starts_nothing(cli, project, home):
    assert cli("-p", "only one").code == 0
    with session_pane(home.root, project, args=("-r",), ready=False) as pane:
        pane.wait_for("Resume which (number, empty to cancel)?")
        pane.send("Enter")
        wait_until(lambda: not pane.alive(), "the picker to leave without a session")
    assert len(_conversations(cli)) == 1
