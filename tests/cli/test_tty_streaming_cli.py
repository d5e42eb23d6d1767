"""On a terminal, text mode streams the answer as it arrives, and prints it exactly once."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from support.cli import cli_env
from support.scripted_server import openai_stream


def test_answer_streams_once_on_a_tty(scripted_server, home, project):
    stream = openai_stream("streamed words arrive in pieces", chunk_size=3)
    stream.pause_after, stream.pause = 3, 0.5  # the first two pieces, then a pause
    scripted_server.queue(stream)
    env = cli_env(home.root, {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": scripted_server.url})
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", "chat", "-p", "hi", "--model", "openai/x"],
        cwd=project,
        env=env,
        stdout=slave,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO once the child closed its side
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    assert text == "streamed words arrive in pieces\n"
    # The first read came during the pause: the start of the answer, shown before the rest.
    assert chunks[0].decode() == "streamed"[: len(chunks[0])] and len(chunks) > 1
