"""The entry point: the click group, and the one place exceptions become exit codes.

Exit codes: 0 success, 1 error, 2 usage error, 130 interrupted. Click runs non-standalone so
Ctrl-C is ours to map; any other exception is a bug and is shown as one line, with the
traceback only under MINI_LETTA_DEBUG=1.
"""

from __future__ import annotations

import logging
import os
import sys

import click

from mini_letta import __version__
from mini_letta.cli.commands import COMMANDS
from mini_letta.errors import MiniLettaError


class _WarningFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"mini-letta: warning: {record.getMessage()}"


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="mini-letta", message="%(prog)s %(version)s"
)
@click.pass_context
def app(ctx: click.Context) -> None:
    """mini-letta: a memory-first, stateful agent for the terminal."""
    if ctx.invoked_subcommand is None:
        from mini_letta.cli.commands.interactive import open_interactive

        open_interactive(ctx)


for _command in COMMANDS:
    app.add_command(_command)


def _fail(message: str, code: int) -> int:
    click.echo(f"mini-letta: {message}", err=True)
    return code


def _configure_logging() -> None:
    logger = logging.getLogger("mini_letta")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_WarningFormatter())
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def main(argv: list[str] | None = None) -> int:
    _configure_logging()
    try:
        rc = app.main(args=argv, prog_name="mini-letta", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.UsageError as exc:  # exit 2; one line, with where to find help
        command = exc.ctx.command_path if exc.ctx else "mini-letta"
        return _fail(f"{exc.format_message()} (see `{command} --help`)", exc.exit_code)
    except click.ClickException as exc:
        return _fail(exc.format_message(), exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        return _fail("interrupted", 130)
    except MiniLettaError as exc:
        return _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        return 1
    except OSError as exc:
        if not _stdout_works():  # a full or closed stdout (`> /dev/full`) is no bug of ours
            return _fail(f"could not write to standard output ({exc.strerror or exc})", 1)
        return _internal_error(exc)
    except Exception as exc:  # a bug in mini-letta
        return _internal_error(exc)
    return rc if isinstance(rc, int) else 0


def _internal_error(exc: Exception) -> int:
    if os.environ.get("MINI_LETTA_DEBUG"):
        raise exc
    return _fail(f"internal error: {exc!r} (MINI_LETTA_DEBUG=1 shows the traceback)", 1)


def _stdout_works() -> bool:
    """False when stdout cannot take what was printed (its failed flush leaves it buffered)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        return False
    return True


def run() -> None:
    sys.exit(_flush_stdout(main()))


def _flush_stdout(code: int) -> int:
    """Flush what a command printed; a full or closed stdout is one line and exit 1."""
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        return code
    try:
        sys.stdout.flush()
    except OSError as exc:
        # Point fd 1 at /dev/null so Python's own flush at exit has nothing to complain about.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        if isinstance(exc, BrokenPipeError) or code != 0:
            return code  # `... | head` stopped reading: nothing to say
        return _fail(f"could not write to standard output ({exc.strerror or exc})", 1)
    return code
