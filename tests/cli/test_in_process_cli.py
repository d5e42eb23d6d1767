"""`main(argv, terminal)` in-process: each invocation has its own streams, environment and
directory, also when two run at once on two threads (nothing process-wide is swapped)."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

import pytest

from mini_letta.cli.main import main
from mini_letta.cli.terminal import Terminal
from support.cli import cli_env

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _terminal(root: Path, stdin: str = "") -> Terminal:
    project = root / "project"
    project.mkdir(parents=True, exist_ok=True)
    return Terminal(
        io.StringIO(stdin), io.StringIO(), io.StringIO(), cli_env(root / "home"), project
    )


def _out(terminal: Terminal) -> str:
    assert isinstance(terminal.stdout, io.StringIO)
    return terminal.stdout.getvalue()


def _err(terminal: Terminal) -> str:
    assert isinstance(terminal.stderr, io.StringIO)
    return terminal.stderr.getvalue()


def _spoil_the_log(terminal: Terminal) -> None:
    """A garbage line in the middle of the conversation's log: the next turn warns about it."""
    first = json.loads(_out(terminal))
    home = Path(terminal.environ["MINI_LETTA_HOME"])
    conv_dir = home / "agents" / first["agentId"] / "conversations" / first["conversationId"]
    log = conv_dir / "messages.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([lines[0], b"garbage that is not json\n", *lines[1:]]))


def test_two_invocations_on_two_threads_keep_their_own_streams(tmp_path):
    spoiled, clean = _terminal(tmp_path / "a"), _terminal(tmp_path / "b")
    assert main(["chat", "-p", "first", "--output-format", "json"], spoiled) == 0
    _spoil_the_log(spoiled)
    spoiled, clean = _terminal(tmp_path / "a"), _terminal(tmp_path / "b")
    codes: dict[str, int] = {}

    def run(name: str, terminal: Terminal, text: str) -> None:
        codes[name] = main(["chat", "-p", text], terminal)

    threads = [
        threading.Thread(target=run, args=("a", spoiled, "来自 a")),
        threading.Thread(target=run, args=("b", clean, "来自 b")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert codes == {"a": 0, "b": 0}
    assert _out(spoiled) == "（mock）我听到了：来自 a\n"
    assert _out(clean) == "（mock）我听到了：来自 b\n"
    assert "mini-letta: warning: " in _err(spoiled)
    assert _err(clean) == ""


def test_help_and_version_print_on_the_terminal(tmp_path):
    terminal = _terminal(tmp_path)
    assert main(["chat", "--help"], terminal) == 0
    assert "Run one headless turn" in _out(terminal)
    terminal = _terminal(tmp_path)
    assert main(["--version", "--help"], terminal) == 0  # not the fast path: click's own parsing
    assert _out(terminal) == "mini-letta 0.1.0\n"


def test_stdin_and_working_directory_come_from_the_terminal(tmp_path):
    terminal = _terminal(tmp_path, stdin="从标准输入来的问题\n")
    assert main(["chat", "-p", "-", "--output-format", "json"], terminal) == 0
    result = json.loads(_out(terminal))
    assert result["result"] == "（mock）我听到了：从标准输入来的问题"
    local = terminal.cwd / ".mini-letta" / "settings.local.json"
    assert result["agentId"] in local.read_text(encoding="utf-8")
