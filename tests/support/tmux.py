"""The interactive session in a real terminal: a tmux pane we type into and read back.

Each pane gets its own tmux server (`-S`, a socket in a fresh temporary folder), so tests never
see each other's windows; the server is killed and the folder removed afterwards. Reading
polls through `wait_until`, bounded, never sleeping long; tmux copies everything the program
writes to a file (`pipe-pane`), so a look while that file has not grown reuses the last capture
instead of starting a `tmux capture-pane` process (most looks, while a turn or a start-up runs).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from support.cli import cli_env
from support.waiting import wait_until

TMUX = shutil.which("tmux")


def is_status_line(row: str) -> bool:
    """The session's bottom line, in its full form or a very narrow window's."""
    return "· reflection " in row or row.startswith(" ☾ ")


class Pane:
    def __init__(self, socket: str, output: str) -> None:
        self.socket = socket
        self.output = output  # where tmux copies the program's output (`pipe-pane`)
        self._captured: dict[bool, tuple[int, str]] = {}  # styles -> (output size, screen)

    def _tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-S", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def send(self, *keys: str) -> None:
        """tmux key names (`Enter`, `C-c`) or text, typed into the pane."""
        self._tmux("send-keys", "-t", "s", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "s", "-l", text)

    def screen(self, *, styles: bool = False) -> str:
        """The visible screen, wrapped rows joined; with `styles`, the escape codes too. The
        screen changes only when the program writes, so while the copy of its output has not
        grown, the last capture is still the screen (its size is read before capturing: what
        arrives during a capture makes the next look capture again)."""
        try:
            size = os.stat(self.output).st_size
        except FileNotFoundError:
            size = -1
        last = self._captured.get(styles)
        if last is not None and size >= 0 and last[0] == size:
            return last[1]
        screen = self._tmux("capture-pane", "-p", "-J", *(["-e"] if styles else []), "-t", "s")
        self._captured[styles] = (size, screen)
        return screen

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        wait_until(
            lambda: text in self.screen(), lambda: f"{text!r} on screen:\n{self.screen()}", timeout
        )
        return self.screen()

    def prompts(self) -> int:
        return sum(1 for row in self.screen().splitlines() if row.startswith("›"))

    def enter(self, text: str) -> None:
        """Type a line at the next prompt and send it; first wait for that prompt, so the text
        is never typed ahead into a turn that is still on screen."""
        self.wait_for_prompt()
        self.type(text)
        self.send("Enter")
        wait_until(lambda: text.splitlines()[0] in self.screen(), f"{text!r} typed")

    def wait_for_prompt(self, timeout: float = 30.0) -> None:
        """Wait until the last prompt on screen is empty, with the status line below it."""

        def ready() -> bool:
            rows = [row for row in self.screen().splitlines() if row.strip()]
            return len(rows) >= 2 and rows[-2].rstrip() == "›" and is_status_line(rows[-1])

        wait_until(ready, lambda: f"an empty prompt on screen:\n{self.screen()}", timeout)

    def tty_flags(self) -> tuple[int, int]:
        """The pane's terminal modes as the program in it left them: (iflag, lflag)."""
        import termios

        path = self._tmux("display-message", "-p", "-t", "s", "#{pane_tty}").strip()
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        try:
            modes = termios.tcgetattr(fd)
        finally:
            os.close(fd)
        return modes[0], modes[3]

    def alive(self) -> bool:
        return "s" in self._tmux("list-sessions", "-F", "#{session_name}").split()


@contextmanager
def session_pane(
    home: Path,
    cwd: Path,
    *,
    width: int = 80,
    height: int = 30,
    env: dict[str, str] | None = None,
    args: Sequence[str] = (),
    ready: bool = True,
) -> Iterator[Pane]:
    """`mini-letta ARGS` (the interactive session) running in a fresh tmux pane; with `ready`,
    once its status line is up."""
    assert TMUX is not None
    folder = tempfile.mkdtemp(prefix="ml-tmux-")  # short: a socket path has a length limit
    pane = Pane(os.path.join(folder, "s"), os.path.join(folder, "out"))
    environ = cli_env(home, {"TERM": "xterm-256color", **(env or {})})
    assignments = [f"{name}={shlex.quote(value)}" for name, value in environ.items()]
    program = [shlex.quote(sys.executable), "-m", "mini_letta", *map(shlex.quote, args)]
    command = " ".join(["env", "-i", *assignments, *program])
    subprocess.run(
        [TMUX, "-S", pane.socket, "-f", "/dev/null", "new-session", "-d", "-s", "s",
         "-x", str(width), "-y", str(height), "-c", str(cwd), command],
        check=True, timeout=10,
    )  # fmt: skip
    pane._tmux("pipe-pane", "-t", "s", f"cat >> {shlex.quote(pane.output)}")
    try:
        if ready:
            wait_until(
                lambda: any(map(is_status_line, pane.screen().splitlines())),
                "the status line (the prompt is up)",
            )
        yield pane
    finally:
        subprocess.run([TMUX, "-S", pane.socket, "kill-server"], capture_output=True, timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
