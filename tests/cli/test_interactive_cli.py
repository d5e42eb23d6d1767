"""The interactive session driven through a pipe (no terminal): turns and slash commands."""

from __future__ import annotations

import json

import pytest

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def test_interactive_session_runs_turns_and_commands(cli):
    result = cli(stdin="你好\n/help\n/new\n第二个对话\n/bogus\n/exit\n")
    assert result.code == 0, result.stderr
    assert "（mock）我听到了：你好" in result.stdout
    assert "（mock）我听到了：第二个对话" in result.stdout
    assert "/reflect" in result.stdout or "/new" in result.stdout
    assert "Unknown command /bogus" in result.stderr
    listed = json.loads(cli("conversations", "list", "--json").stdout)
    assert len(listed) == 2


def test_interactive_session_ends_at_eof(cli):
    result = cli(stdin="one line\n")
    assert result.code == 0
    assert result.stdout.strip() == "（mock）我听到了：one line"
