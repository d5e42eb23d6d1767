"""The outside world one CLI invocation talks to: its streams, environment and directory.

`main(argv, terminal)` hands a `Terminal` to click as the context object, so a program (or a
test) can run a command in-process with its own stdin, stdout, stderr, environment and
working directory, and nothing in the process is patched. Commands reach it through
`current_terminal()`, which reads click's current context (a per-thread stack), so two
invocations on two threads never see each other's streams. Outside an invocation it is the
real process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import click


@dataclass(frozen=True, slots=True)
class Terminal:
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
        """click.echo to this terminal's stdout (or stderr), flushed."""
        click.echo(message, file=self.stderr if err else self.stdout, nl=nl)

    def is_interactive(self) -> bool:
        """Both ends are a real terminal (prompt_toolkit, live reflection lines)."""
        return self.stdin.isatty() and self.stdout.isatty()

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question on stderr and read the answer from stdin; no answer is no."""
        self.echo(f"{question} [y/N]: ", err=True, nl=False)
        answer = self.stdin.readline()
        if not answer:
            self.echo(err=True)
        return answer.strip().lower() in ("y", "yes")


def current_terminal() -> Terminal:
    """The terminal of the command running on this thread, else the real process."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_object(Terminal) if ctx is not None else None
    return found if found is not None else Terminal.of_process()


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print a line of a command's output on the current terminal (stderr with `err`)."""
    current_terminal().echo(message, err=err, nl=nl)
