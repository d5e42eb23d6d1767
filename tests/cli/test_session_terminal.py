"""The interactive session in a real terminal (tmux): what a user sees and types."""

from __future__ import annotations

import json
import re

import pytest

from support.agents import fresh_agent
from support.tmux import TMUX, session_pane
from support.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
    pytest.mark.timeout(120),
]

ANSWER = "Steps:\n\n- **first** thing\n- second\n\n```python\nprint('hi')\n```\n"


def _agent(world, project, entries) -> None:
    """The project's agent on `script:s.json` (a copy of one made once per worker)."""
    (project / "s.json").write_text(json.dumps(entries))
    fresh_agent(world, model="script:s.json", current=True)


def test_an_answer_streams_then_shows_as_markdown_and_ctrl_c_cancels_then_leaves(
    cli, world, project, home
):
    (project / "a.txt").write_text("a\n")
    reading = {
        "text": "Reading first.",
        "toolCalls": [{"name": "Read", "arguments": {"path": "a.txt"}}],
    }
    _agent(world, project, [ANSWER, reading, {"delay": 60, "text": "too late"}])
    with session_pane(home.root, project, width=60) as pane:
        screen = pane.wait_for("project · script:s.json · context")  # the status line
        assert "reflection idle" in screen
        pane.enter("show me")
        screen = pane.wait_for("• second")
        assert "**first**" not in screen and "```" not in screen  # rendered, not the source
        assert "print('hi')" in screen

        pane.enter("/memroy")
        pane.wait_for("Unknown command /memroy; did you mean /memory?")
        pane.wait_for_prompt()
        pane.type("/help")  # taller than the pane: its own line scrolls away at once
        pane.wait_for("› /help")
        pane.send("Enter")
        pane.wait_for("leave (Ctrl-D works too)")

        pane.enter("take your time")
        pane.wait_for("⚙ [1] Read a.txt ✓")  # the turn has the terminal: Ctrl-C is a signal now
        pane.send("C-c")
        screen = pane.wait_for("(interrupted)")
        assert "Reading first." in screen  # the partial answer stays
        pane.wait_for_prompt()
        pane.send("C-o")  # the last tool call in full, above the prompt
        pane.wait_for("output (1 line):")
        wide = [row for row in pane.screen().splitlines() if len(row.rstrip()) > 60]
        assert wide == [], wide  # -J joins what the terminal wrapped: nothing had to be
        assert pane.alive()
        pane.send("C-c")
        wait_until(lambda: not pane.alive(), "the session to leave on a second Ctrl-C")


def test_the_approval_prompt_shows_the_diff_and_runs_once_approved(cli, world, project, home):
    (project / "notes.txt").write_text("alpha\nbeta\n")
    edit = {"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}
    _agent(world, project, [{"toolCalls": [{"name": "Edit", "arguments": edit}]}, "Done."])
    with session_pane(home.root, project) as pane:
        pane.enter("fix the notes")
        screen = pane.wait_for("[y]es once / [a]lways Edit this session / [N]o, deny")
        assert "-beta" in screen and "+gamma" in screen
        pane.type("y")
        pane.send("Enter")
        pane.wait_for("⚙ [1] Edit notes.txt ✓")
        pane.wait_for("Done.")
    assert (project / "notes.txt").read_text() == "alpha\ngamma\n"


def test_a_background_reflection_shows_its_outcome_between_turns(cli, project_agent, project, home):
    with session_pane(home.root, project) as pane:
        pane.enter("remember that I like tea")
        pane.enter("/reflect")
        pane.wait_for("reflecting in the background")

        def outcome_lines() -> list[str]:
            return [row for row in pane.screen().splitlines() if "☾ reflection " in row]

        wait_until(outcome_lines, "the run's outcome line", 90)
        wait_until(lambda: "reflection running" not in pane.screen(), "the status line")
        outcome = outcome_lines()
        assert len(outcome) == 1, pane.screen()  # one line, between turns
        status = outcome[0].split(": ", 1)[1].split(" ")[0]  # "☾ reflection RUN: merged — …"
        shown = f"reflection {status.replace('_', ' ')}"
        # the status bar is the last row once drawn (a capture can fall inside a redraw)
        wait_until(lambda: shown in (pane.screen().splitlines() or [""])[-1], "the status bar")


def test_a_40_column_window_with_no_color_gets_fitted_plain_output(cli, world, project, home):
    (project / "a.txt").write_text("a\n")
    reading = {"toolCalls": [{"name": "Read", "arguments": {"path": "a.txt"}}]}
    _agent(world, project, [reading, ANSWER])
    with session_pane(home.root, project, width=40, env={"NO_COLOR": "1"}) as pane:
        pane.enter("show me")
        pane.wait_for("• second")  # markdown, its code block without colour
        pane.wait_for("(Ctrl-O: the last tool call in full;")  # said once, after the first
        colours = re.findall(r"\x1b\[[0-9;]*m", pane.screen(styles=True))
        assert not [c for c in colours if re.search(r"\[(3[0-8]|9[0-7]|4[0-8])", c)], colours
        pane.enter("/context")
        pane.wait_for("compaction at")
        pane.wait_for_prompt()
        pane.send("C-o")
        pane.wait_for("output (1 line):")
        rows = pane.screen().splitlines()
        assert [row for row in rows if len(row.rstrip()) > 40] == []
        pane.wait_for_prompt()  # what was typed stays, and the status line is still there
