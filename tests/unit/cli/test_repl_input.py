"""The session's prompt through prompt_toolkit's pipe input: newlines, Ctrl-C, completion."""

from __future__ import annotations

from pathlib import Path

import pytest

from mini_letta.cli.commands.slash import COMMANDS
from mini_letta.cli.repl_input import build_prompt_session, complete

# prompt_toolkit is imported by the tests (on the one worker that runs them), not at collection
pytestmark = pytest.mark.xdist_group("prompt_toolkit")


def _read(tmp_path: Path, keys: str, toolbar=None) -> str:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        session = build_prompt_session(
            tmp_path / "home" / "history", tmp_path, toolbar, input=pipe, output=DummyOutput()
        )
        return session.prompt("› ")


def _completions(cwd: Path, text: str) -> list[tuple[str, str]]:
    def arguments(name: str, typed: str) -> list[str]:
        words = ["show system/persona.md", "log"] if name == "/memory" else []
        return [word for word in words if word.startswith(typed)]

    return [(choice.text, choice.meta) for choice in complete(cwd, text, COMMANDS, arguments)]


def test_enter_sends_and_esc_enter_or_ctrl_j_add_a_line(tmp_path):
    assert _read(tmp_path, "one\x1b\rtwo\nthree\r") == "one\ntwo\nthree"


def test_a_paste_keeps_its_lines(tmp_path):
    assert _read(tmp_path, "\x1b[200~first\nsecond\x1b[201~\r") == "first\nsecond"


def test_ctrl_c_clears_a_line_with_text_and_interrupts_on_an_empty_one(tmp_path):
    assert _read(tmp_path, "oops\x03fine\r") == "fine"
    with pytest.raises(KeyboardInterrupt):
        _read(tmp_path, "\x03")


def test_history_is_kept_across_sessions(tmp_path):
    _read(tmp_path, "remember me\r")
    assert _read(tmp_path, "\x1b[A\r") == "remember me"


def test_the_toolbar_is_drawn_from_the_sessions_callable_at_the_windows_width(tmp_path):
    drawn: list[int] = []

    def toolbar(width: int) -> str:
        drawn.append(width)
        return "agent · model"

    from prompt_toolkit.output import DummyOutput

    assert _read(tmp_path, "hi\r", toolbar) == "hi"
    assert drawn and set(drawn) == {DummyOutput().get_size().columns}


def test_slash_completion_lists_matching_commands_with_their_descriptions(tmp_path):
    found = _completions(tmp_path, "/re")
    described = {command.name: command.description for command in COMMANDS}
    assert found == [(name, described[name]) for name in described if name.startswith("/re")]
    assert "/resume" in dict(found) and "/memory" not in dict(found)
    assert _completions(tmp_path, "/reflect now") == []  # no completer for its argument


def test_a_commands_arguments_come_from_its_completer(tmp_path):
    assert _completions(tmp_path, "/memory sh") == [("show system/persona.md", "")]
    (tmp_path / "notes.md").write_text("")
    assert _completions(tmp_path, "/reflect on @no") == [("notes.md", "")]


def test_at_path_completes_files_in_the_working_directory(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".hidden").write_text("")
    assert [t for t, _ in _completions(tmp_path, "look at @s")] == ["setup.cfg", "src/"]
    assert [t for t, _ in _completions(tmp_path, "@src/m")] == ["src/main.py"]
    assert ".hidden" not in [t for t, _ in _completions(tmp_path, "@")]
    assert [t for t, _ in _completions(tmp_path, "@.h")] == [".hidden"]
    assert _completions(tmp_path, "@nowhere/x") == []
    assert _completions(tmp_path, "no at sign") == []


def test_ctrl_o_shows_the_last_tool_call_and_keeps_what_was_typed(tmp_path):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    shown: list[int] = []
    with create_pipe_input() as pipe:
        pipe.send_text("half\x0f typed\r")
        session = build_prompt_session(
            tmp_path / "history",
            tmp_path,
            on_expand=lambda: shown.append(1),
            input=pipe,
            output=DummyOutput(),
        )
        assert session.prompt("› ") == "half typed"
    assert shown == [1]
