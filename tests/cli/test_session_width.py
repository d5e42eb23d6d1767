"""The interactive session in a narrow window: every line it prints fits, nothing crashes, and
without a terminal or with NO_COLOR the output stays plain. Driven in-process through piped
input, the window's width given as COLUMNS (as a terminal's would be)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mini_letta.cli.fit import text_columns
from support.cli import RunCli, project_snapshot

LONG = "ls -la " + "/".join(["a-rather-long-folder-name"] * 4) + " && echo " + "word " * 20

TOOLS = {
    "text": "Looking.",
    "toolCalls": [
        {"name": "Read", "arguments": {"path": "a.txt"}},
        {"name": "Bash", "arguments": {"command": LONG}},
    ],
}

COMMANDS = [
    "/help",
    "/context",
    "/memory",
    "/memory log",
    "/reflections",
    "/status",
    "/permissions",
    "/model",
    "/agents",
    "/conversations",
    "/expand all",
    "/resume",
    "",  # cancels the picker
    "/memroy",
    "/search tabs",
    "/search tabs --memory",
]


def _scripted_session(cli: RunCli, project: Path) -> None:
    """A project whose second agent answers from a script (a Read and a long Bash, then
    "Done."), with a chat and a reflection run behind it."""
    (project / "a.txt").write_text("alpha\n" + "x" * 150 + "\n")
    answers = [TOOLS, "Done."]
    (project / "s.json").write_text(json.dumps(answers))
    assert cli("agents", "create").code == 0  # the project's first agent, the mock
    assert cli("agents", "create", "--model", "script:s.json").code == 0, "agent"
    assert cli("chat", "--model", "mock", "-p", "I like tabs for indentation").code == 0
    reflected = cli("reflect", "--model", "mock")  # a run for /reflections to list
    assert "☾ reflection" in reflected.stderr, reflected.stderr


@pytest.fixture
def scripted(tmp_path_factory, home, project) -> None:
    """This test's own copy of the scripted session's project and home (two new agents, a turn
    and a reflection run: about 25 git processes, made once per test process)."""
    base = tmp_path_factory.getbasetemp()
    project_snapshot("scripted-session", base, _scripted_session).copy_into(home.root, project)


def _run(cli, width: int, *lines: str):
    stdin = "".join(f"{line}\n" for line in (*lines, "/exit"))
    env = {"COLUMNS": str(width), "NO_COLOR": "1"}
    result = cli(stdin=stdin, env=env)
    assert result.code == 0, result.stderr
    return result


def _too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if text_columns(line) > width]


@pytest.mark.parametrize("width", [60, 40])
def test_every_line_of_a_session_fits_the_window(cli, scripted, width):
    result = _run(cli, width, "read it and list things", "n", *COMMANDS)  # n: deny Bash
    assert _too_wide(result.stdout, width) == []
    assert _too_wide(result.stderr, width) == []
    assert "[y]es once" in result.stderr and "Commands:" in result.stdout
    assert "memory files by size" in result.stdout and "last run" in result.stdout
    assert "Unknown command /memroy; did you mean /memory?" in result.stderr.replace("\n  ", " ")
    assert "⚙ [2] Bash: ls -la" in result.stderr  # the compact line, cut with an ellipsis
    assert "☾" not in result.stdout and "\x1b[" not in result.stdout + result.stderr


def test_expanding_shows_what_the_compact_line_cut(cli, scripted):
    result = _run(cli, 60, "/permissions bypassPermissions", "read it", "/expand 2")
    compact = next(line for line in result.stderr.splitlines() if "⚙ [2]" in line)
    assert "…" in compact and "✗" in compact  # ls finds no such folder
    expanded = "".join(result.stdout.split())  # the wrapped rows, read as one text
    assert "".join(LONG.split()) in expanded
    assert "Nosuchfileordirectory" in expanded
    assert _too_wide(result.stdout, 60) == []


def test_the_help_table_wraps_its_descriptions_in_their_column(cli, project_agent):
    out = _run(cli, 60, "/help").stdout
    rows = out.splitlines()
    assert rows[0] == "Commands:"
    first = rows.index(next(row for row in rows if row.startswith("  /search ")))
    assert rows[first + 1].startswith(" " * 32) and rows[first + 1].strip()
    narrow = _run(cli, 40, "/help").stdout.splitlines()
    assert "  /search QUERY [--memory]" in narrow  # the description goes below, indented
    assert narrow[narrow.index("  /search QUERY [--memory]") + 1].startswith("      search")


def test_without_a_width_lines_are_left_whole(cli, project_agent):
    result = cli(stdin="/help\n/exit\n")
    assert any(text_columns(line) > 80 for line in result.stdout.splitlines())


def test_a_reflection_runs_record_wraps_and_its_diff_stays_whole(cli, scripted):
    run_id = json.loads(cli("reflections", "list", "--json").stdout)[0]["runId"]
    out = _run(cli, 40, f"/reflections show {run_id}").stdout
    record, _, diff = out.partition("\n\n")
    assert _too_wide(record, 40) == [] and "payload:" in record
    assert "".join(cli("reflections", "show", run_id).stdout.split()) == "".join(out.split())
    assert "diff --git a/system/human.md b/system/human.md" in diff  # content is not wrapped
