"""On a terminal, text mode streams the answer as it arrives, and prints it exactly once.

The turn runs in-process with a pseudo-terminal as its stdout (a real tty: `isatty()`, a size,
the line discipline), read on a thread as a terminal emulator would read it."""

from __future__ import annotations

import io
import os
import pty
import threading

import pytest

from support.cli import cli_env
from support.groups import SDK
from support.scripted_server import openai_stream

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


@SDK
def test_answer_streams_once_on_a_tty(scripted_server, home, project):
    from mini_letta.cli.main import main
    from mini_letta.cli.terminal import Terminal

    stream = openai_stream("streamed words arrive in pieces", chunk_size=3)
    stream.pause_after, stream.pause = 3, 0.5  # the first two pieces, then a pause
    scripted_server.queue(stream)
    env = cli_env(home.root, {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": scripted_server.url})
    master, slave = pty.openpty()
    chunks: list[bytes] = []

    def read_screen() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO once the turn closed its side
                break
            if not data:
                break
            chunks.append(data)

    screen = threading.Thread(target=read_screen, daemon=True)
    screen.start()
    err = io.StringIO()
    try:
        with open(slave, "w", encoding="utf-8") as tty:
            terminal = Terminal(io.StringIO(), tty, err, env, project)
            code = main(["chat", "-p", "hi", "--model", "openai/x"], terminal)
        screen.join(30)
    finally:
        os.close(master)
    assert code == 0, err.getvalue()
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    assert text == "streamed words arrive in pieces\n"
    # The first read came during the pause: the start of the answer, shown before the rest.
    assert chunks[0].decode() == "streamed"[: len(chunks[0])] and len(chunks) > 1
