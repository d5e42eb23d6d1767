"""`mini-letta import` again and `import --all FOLDER`: Claude Code projects and Codex sessions
folders in their real layouts, progress on a terminal or as plain lines, links refused, and an
import killed halfway leaving nothing half-imported that the next run does not clean."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time

import pytest

from support.cli import CliResult, cli_env
from support.transcripts import CLAUDE_CODE, CODEX, write_lines


@pytest.fixture
def sessions(tmp_path):
    """~/.claude/projects with two projects and a sub-agent file; ~/.codex/sessions by date."""
    claude = tmp_path / "dot-claude" / "projects"
    write_lines(claude / "-w-app" / "5d0c1f9e-7b1a-4c1e-9f3a-2b8e6d4a0c11.jsonl", CLAUDE_CODE)
    other = [{**line, "sessionId": "9e1d"} if "sessionId" in line else line for line in CLAUDE_CODE]
    write_lines(claude / "-w-api" / "9e1d.jsonl", other)
    write_lines(claude / "-w-app" / "agent-1f2e.jsonl", CLAUDE_CODE[2:4])
    write_lines(claude / "-w-app" / "0c1d.jsonl", CLAUDE_CODE[:2])  # titles and snapshots only
    codex = tmp_path / "dot-codex" / "sessions"
    write_lines(codex / "2025" / "10" / "29" / "rollout-2025-10-29T00-59-38-019a.jsonl", CODEX)
    return claude, codex


def _conversations(cli):
    return json.loads(cli("conversations", "list", "--json").stdout)


def test_import_all_imports_every_session_once_with_a_line_each(cli, sessions):
    """In a fresh project: the first import makes the project's agent (the other tests start
    with it there)."""
    claude, codex = sessions
    first = cli("import", "--all", str(claude))
    assert first.code == 0, first.stderr
    summary = "3 session(s): 2 new conversation(s), 0 grown, 0 unchanged, 1 without messages"
    assert summary in first.stdout
    lines = first.stderr.splitlines()
    assert lines[0].startswith("[1/3] Imported 8 message(s) from -w-api/9e1d.jsonl")
    assert "6 line(s) of harness text left out" in lines[0]
    assert lines[1] == "[2/3] -w-app/0c1d.jsonl: no messages, skipped"
    assert lines[2].startswith("[3/3] Imported 8 message(s) from -w-app/5d0c1f9e")
    assert cli("import", "--all", str(codex)).code == 0
    again = cli("import", "--all", str(claude))
    assert "0 new conversation(s), 0 grown, 2 unchanged, 1 without" in again.stdout
    assert "; 0 message(s) added" in again.stdout
    titles = sorted(c["title"] for c in _conversations(cli))
    assert titles == [
        "Fix the login page crash",
        "Fix the login page crash",
        "为什么 pnpm install 失败？",
    ]
    hits = json.loads(cli("search", "判空", "--output-format", "json").stdout)
    assert len(hits) == 2  # one per session, not doubled by the second run


def test_importing_a_grown_session_again_adds_only_the_new_messages(project_agent, cli, project):
    path = write_lines(project / "rollout.jsonl", CODEX[:4])
    first = cli("import", "rollout.jsonl", "--output-format", "json")
    created = json.loads(first.stdout)
    assert created["created"] and created["messages"] == 1
    write_lines(path, CODEX)
    grown = cli("import", "rollout.jsonl")
    assert grown.stdout.strip() == (
        f"Added 5 new message(s) from rollout.jsonl to {created['conversationId']}."
    )
    same = cli("import", "rollout.jsonl")
    assert same.stdout.startswith("Nothing new in rollout.jsonl")
    assert len(_conversations(cli)) == 1


def test_a_torn_last_line_is_a_warning_not_a_failure(project_agent, cli, project):
    whole = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in CLAUDE_CODE)
    (project / "live.jsonl").write_text(whole[:-30], encoding="utf-8")
    result = cli("import", "live.jsonl")
    assert result.code == 0, result.stderr
    assert "an unfinished last line (still being written?) was skipped" in result.stderr
    assert "Imported 7 message(s)" in result.stdout


def test_links_out_of_the_folder_are_refused_one_line_each_and_the_rest_imported(
    project_agent, cli, sessions, tmp_path
):
    claude, _ = sessions
    outside = write_lines(tmp_path / "private" / "other.jsonl", CODEX)
    (claude / "-w-app" / "linked.jsonl").symlink_to(outside)
    (claude / "-w-elsewhere").symlink_to(outside.parent, target_is_directory=True)
    result = cli("import", "--all", str(claude))
    assert result.code == 1
    refused = [line for line in result.stderr.splitlines() if "is a link to something" in line]
    assert len(refused) == 2 and all("refused" in line for line in refused)
    assert "2 new conversation(s)" in result.stdout
    single = cli("import", str(claude / "-w-app" / "linked.jsonl"))
    assert single.code == 1 and len(single.stderr.strip().splitlines()) == 1
    assert "is a link to something outside" in single.stderr


def test_import_all_shows_a_progress_bar_on_a_terminal(project_agent, home, project, sessions):
    from mini_letta.cli.main import main
    from mini_letta.cli.terminal import Terminal

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = io.StringIO(), Tty()
    terminal = Terminal(io.StringIO(), out, err, cli_env(home.root), project)
    code = main(["import", "--all", str(sessions[0])], terminal)
    result = CliResult(code, out.getvalue(), err.getvalue())
    assert result.code == 0, result.stderr
    assert "importing" in result.stderr and "3/3" in result.stderr
    assert "[1/3]" not in result.stderr  # the bar, not the plain lines


def test_a_usage_mistake_with_all_is_exit_2(cli, project, sessions):
    assert cli("import", "--all", "nope").code == 2
    assert cli("import", "--all", str(sessions[0]), "--title", "x").code == 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_an_import_killed_halfway_leaves_nothing_half_imported(
    project_agent, cli, home, project, sig
):
    lines = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"第 {i} 行 " * 8}
             for i in range(2_000)]  # fmt: skip
    big = write_lines(project / "big.jsonl", lines)
    staging = next(home.agents_dir.iterdir()) / "import-staging"
    child = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", "import", str(big)],
        cwd=project,
        env=cli_env(home.root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    caught = False
    deadline = time.monotonic() + 45
    while child.poll() is None and time.monotonic() < deadline:
        if staging.is_dir() and any(staging.iterdir()):
            child.send_signal(sig)  # while the conversation is being staged
            caught = True
            break
        time.sleep(0.002)
    _, err = child.communicate(timeout=30)
    assert b"Traceback" not in err
    if caught:
        assert any(staging.iterdir()) or child.returncode == 0  # a leftover, unless it finished
    listed = _conversations(cli)
    assert len(listed) <= 1
    small = write_lines(project / "small.jsonl", lines[:2])
    assert cli("import", str(small)).code == 0
    assert list(staging.iterdir()) == []  # the next import removed any leftover
    for conversation in _conversations(cli):
        every = ("--json", "-n", "100000")  # `show` lists the last 20 unless told otherwise
        shown = json.loads(cli("conversations", "show", conversation["id"], *every).stdout)
        assert len(shown["messages"]) in (2, 2_000)  # whole or not at all
