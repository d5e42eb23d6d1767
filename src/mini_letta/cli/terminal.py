"""The outside world one CLI invocation talks to: its streams, environment and directory.

`main(argv, terminal)` runs a command with a `Terminal`, so a program (or a test) can run a
command in-process with its own stdin, stdout, stderr, environment and working directory, and
nothing in the process is patched. Commands reach it through `current_terminal()`, which reads
the invocation's context variable: each thread has its own, so two invocations on two threads
never see each other's streams, and a helper thread an invocation starts sees none. Outside an
invocation it is the real process. No click here: `chat -p` runs without importing it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TextIO

from mini_letta.structs import Struct
from mini_letta.tools.output import strip_ansi


class Terminal(Struct, frozen=True):
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str]
    cwd: Path

    @classmethod
    def of_process(cls) -> Terminal:
        """This process's own streams, environment (a copy) and working directory."""
        return cls(sys.stdin, sys.stdout, sys.stderr, dict(os.environ), Path.cwd())

    def echo(self, message: str = "", *, err: bool = False, nl: bool = True) -> None:
        """Print on this terminal's stdout (or stderr), flushed; terminal control sequences
        are left out when the stream is no terminal (a pipe or a file), as click.echo does."""
        stream = self.stderr if err else self.stdout
        if stream is None:  # started with the stream closed
            return
        text = message + "\n" if nl else message
        if text and not _isatty(stream):
            text = strip_ansi(text)
        if text:
            stream.write(text)
        stream.flush()

    def is_interactive(self) -> bool:
        """Both ends are a real terminal (prompt_toolkit, live reflection lines)."""
        return self.stdin.isatty() and self.stdout.isatty()

    def columns(self) -> int | None:
        """The width output should fit: `COLUMNS` when set, else the terminal's; None when
        stdout is no terminal (a pipe or a file keeps whole lines)."""
        given = self.environ.get("COLUMNS", "")
        if given.isdigit() and int(given) > 0:
            return int(given)
        try:
            if not self.stdout.isatty():
                return None
            return os.get_terminal_size(self.stdout.fileno()).columns or None
        except (OSError, ValueError, AttributeError):
            return None

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question on stderr and read the answer from stdin; no answer is no."""
        self.echo(f"{question} [y/N]: ", err=True, nl=False)
        answer = self.stdin.readline()
        if not answer:
            self.echo(err=True)
        return answer.strip().lower() in ("y", "yes")


_INVOCATION: ContextVar[Terminal | None] = ContextVar("mini_letta_terminal", default=None)


@contextmanager
def running_on(terminal: Terminal) -> Iterator[None]:
    """Make `terminal` this thread's current terminal while a command runs."""
    token = _INVOCATION.set(terminal)
    try:
        yield
    finally:
        _INVOCATION.reset(token)


def current_terminal() -> Terminal:
    """The terminal of the command running on this thread, else the real process."""
    found = _INVOCATION.get()
    return found if found is not None else Terminal.of_process()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print a line of a command's output on the current terminal (stderr with `err`)."""
    current_terminal().echo(message, err=err, nl=nl)


def echo_wrapped(message: str = "", *, err: bool = False) -> None:
    """Print a message (prose, not content) wrapped to the current terminal's columns."""
    from mini_letta.cli.fit import wrap_lines

    terminal = current_terminal()
    terminal.echo("\n".join(wrap_lines([message], terminal.columns())), err=err)
