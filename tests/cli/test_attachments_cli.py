"""`@path` in -p, chat and the interactive session: the file goes with the message; a file
that cannot attach is one line and nothing is sent."""

from __future__ import annotations

import json

import pytest

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _messages(cli) -> list[dict[str, object]]:
    listed = json.loads(cli("conversations", "list", "--json").stdout)
    shown = cli("conversations", "show", str(listed[0]["id"]), "--json")
    return list(json.loads(shown.stdout)["messages"])


def test_p_attaches_the_file_a_prompt_names(cli, project):
    (project / "notes.txt").write_text("the build needs pnpm\n")
    result = cli("-p", "what does @notes.txt say?", "--output-format", "json")
    assert result.code == 0, result.stderr
    answer = json.loads(result.stdout)["result"]
    assert answer.endswith('<file path="notes.txt">\nthe build needs pnpm\n</file>')
    said = cli("chat", "-p", "and me@example.com?")
    assert said.stdout == "（mock）我听到了：and me@example.com?\n"  # an email is no reference


def test_a_missing_file_is_one_line_and_nothing_is_sent(cli, project):
    assert cli("-p", "hello").code == 0
    before = len(_messages(cli))
    result = cli("chat", "-p", "read @nope/missing.md please", "--output-format", "json")
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "@nope/missing.md: no such file" in result.stderr
    assert len(_messages(cli)) == before


def test_the_interactive_session_attaches_and_goes_on_after_a_bad_one(cli, project):
    (project / "a.txt").write_text("alpha\n")
    result = cli(stdin="see @b.txt\nsee @a.txt\n/exit\n")
    assert result.code == 0, result.stderr
    assert "mini-letta: @b.txt: no such file" in result.stderr
    assert '我听到了：see @a.txt\n\n<file path="a.txt">\nalpha\n</file>' in result.stdout
    users = [m for m in _messages(cli) if m["role"] == "user"]
    assert len(users) == 1
