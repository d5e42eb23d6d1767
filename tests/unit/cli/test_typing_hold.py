"""held_typing: a no-op unless the session prompts on a terminal."""

from __future__ import annotations

import io
import os
import pty
import termios
from pathlib import Path

from mini_letta.cli.terminal import Terminal
from mini_letta.cli.typing_hold import held_typing


def test_piped_streams_are_left_alone(tmp_path):
    terminal = Terminal(io.StringIO("typed\n"), io.StringIO(), io.StringIO(), {}, tmp_path)
    with held_typing(terminal):
        assert terminal.stdin.readline() == "typed\n"


def test_on_a_terminal_keys_are_held_then_the_modes_come_back(tmp_path: Path):
    leader, follower = pty.openpty()
    with os.fdopen(os.dup(follower), "r") as stdin, os.fdopen(os.dup(follower), "w") as out:
        before = termios.tcgetattr(follower)
        terminal = Terminal(stdin, out, out, {}, tmp_path)
        with held_typing(terminal):
            during = termios.tcgetattr(follower)
            assert not during[3] & (termios.ECHO | termios.ICANON)
            assert during[3] & termios.ISIG and not during[0] & termios.ICRNL
            os.write(leader, b"next\r")  # typed meanwhile: kept, Enter as a carriage return
            assert os.read(follower, 16) == b"next\r"
        assert termios.tcgetattr(follower) == before
    for fd in (leader, follower):
        os.close(fd)
