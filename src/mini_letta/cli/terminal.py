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
from pathlib import Path
from typing import TextIO

import click
from msgspec import Struct


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
        """click.echo to this terminal's stdout (or stderr), flushed."""
        click.echo(message, file=self.stderr if err else self.stdout, nl=nl)

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


def current_terminal() -> Terminal:
    """The terminal of the command running on this thread, else the real process."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_object(Terminal) if ctx is not None else None
    return found if found is not None else Terminal.of_process()


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print a line of a command's output on the current terminal (stderr with `err`)."""
    current_terminal().echo(message, err=err, nl=nl)


def echo_wrapped(message: str = "", *, err: bool = False) -> None:
    """Print a message (prose, not content) wrapped to the current terminal's columns."""
    from mini_letta.cli.fit import wrap_lines

    terminal = current_terminal()
    terminal.echo("\n".join(wrap_lines([message], terminal.columns())), err=err)


def add_help_options(command: click.Command) -> None:
    """Give `command` (and its subcommands) a `-h/--help` that prints on the terminal; run it
    in a context with `help_option_names=[]` so click adds no second one of its own."""
    if any("--help" in getattr(param, "opts", ()) for param in command.params):
        return  # done already (an alias is the same command under a second name)
    command.params.append(
        click.Option(
            ["-h", "--help"],
            is_flag=True,
            expose_value=False,
            is_eager=True,
            callback=_show_help,
            help="Show this message and exit.",
        )
    )
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_help_options(sub)


def _show_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        current_terminal().echo(ctx.get_help())
        ctx.exit()
