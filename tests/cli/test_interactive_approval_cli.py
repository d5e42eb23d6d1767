"""The interactive session asks before edits and commands; the answer decides."""

from __future__ import annotations

import json

import pytest

from support.agents import fresh_agent


def _agent_with_script(world, project, entries) -> None:
    """The project's agent on `script:s.json` (a copy of one made once per worker)."""
    (project / "s.json").write_text(json.dumps(entries))
    fresh_agent(world, model="script:s.json", current=True)


def _bash(command: str) -> dict:
    return {"name": "Bash", "arguments": {"command": command}}


@pytest.mark.parametrize(
    ("answer", "ran"), [("y", True), ("n", False), ("", False)], ids=["yes", "no", "enter"]
)
def test_interactive_approval_decides_whether_the_command_runs(cli, world, project, answer, ran):
    _agent_with_script(world, project, [{"toolCalls": [_bash("touch made")]}, "ok"])
    result = cli(stdin=f"please run it\n{answer}\n")
    assert result.code == 0, result.stderr
    assert "? allow Bash: touch made" in result.stderr
    assert (project / "made").exists() is ran
    if not ran:
        assert "the user declined to run Bash" in result.stderr


def test_always_approves_the_tool_for_the_rest_of_the_session(cli, world, project):
    entries = [{"toolCalls": [_bash("touch one"), _bash("touch two")]}, "ok"]
    _agent_with_script(world, project, entries)
    result = cli(stdin="go\na\n")
    assert result.code == 0, result.stderr
    assert (project / "one").exists() and (project / "two").exists()
    assert result.stderr.count("? allow") == 1


def test_end_of_input_while_asking_refuses(cli, world, project):
    _agent_with_script(world, project, [{"toolCalls": [_bash("touch made")]}, "ok"])
    result = cli(stdin="go\n")
    assert result.code == 0, result.stderr
    assert not (project / "made").exists()


def test_the_prompt_shows_the_diff_an_edit_would_make(cli, world, project):
    (project / "notes.txt").write_text("alpha\nbeta\n")
    edit = {
        "name": "Edit",
        "arguments": {"path": "notes.txt", "old_string": "beta", "new_string": "gamma"},
    }
    _agent_with_script(world, project, [{"toolCalls": [edit]}, "ok"])
    result = cli(stdin="change it\nn\n")
    assert result.code == 0, result.stderr
    assert "    -beta\n    +gamma\n" in result.stderr
    assert "[y]es once / [a]lways Edit this session / [N]o, deny" in result.stderr
    assert (project / "notes.txt").read_text() == "alpha\nbeta\n"
