"""The entry point, and the one place exceptions become exit codes.

Exit codes: 0 success, 1 error, 2 usage error, 130 interrupted. Click runs non-standalone so
Ctrl-C is ours to map; any other exception is a bug and is shown as one line, with the
traceback only under MINI_LETTA_DEBUG=1. `main()` takes an optional `Terminal`, so a caller
can run a command in-process with its own streams, environment and working directory.
`--version` alone is answered before anything else is imported, and the plain form of
`chat -p TEXT` (cli/chat_args.py) runs without click, which is a sixth of a turn's start-up, as
does the detached reflection worker (cli/background.py writes and reads its command line).
"""

from __future__ import annotations

import os
import sys

from mini_letta.cli import VERSION_LINE, WORKER_COMMAND

TYPE_CHECKING = False  # not `typing`'s: importing typing would double what `--version` costs
if TYPE_CHECKING:
    from collections.abc import Callable
    from sys import UnraisableHookArgs
    from typing import TextIO

    from mini_letta.cli.terminal import Terminal


def main(argv: list[str] | None = None, terminal: Terminal | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        out = sys.stdout if terminal is None else terminal.stdout
        if out is not None:  # None: started with stdout closed
            out.write(VERSION_LINE + "\n")
            out.flush()
        return 0
    from mini_letta.cli.terminal import Terminal, running_on

    if terminal is None:
        try:
            terminal = Terminal.of_process()
        except FileNotFoundError:  # the working directory was deleted under the shell
            if sys.stderr is not None:
                sys.stderr.write(
                    "mini-letta: the current directory no longer exists; cd to one that does\n"
                )
            return 1
    from mini_letta.log import warnings_to

    with running_on(terminal), warnings_to(terminal.stderr):
        return _invoke(args, terminal)


def _invoke(args: list[str], terminal: Terminal) -> int:
    from mini_letta.cli.chat_args import plain_chat_args
    from mini_letta.errors import MiniLettaError

    try:
        if args[:1] == [WORKER_COMMAND]:  # our own detached worker: its line is ours, no click
            from mini_letta.cli.commands.reflect_worker import run_reflect_worker

            return run_reflect_worker(args[1:], terminal)
        args = as_claude_would(args)
        plain = plain_chat_args(args)
        if plain is not None:  # `chat -p TEXT` with plain flags: the same run, without click
            from mini_letta.cli.chat_run import run_chat

            return run_chat(plain, terminal)
        return _invoke_click(args, terminal)
    except KeyboardInterrupt:
        return _fail(terminal, "interrupted", 130)
    except MiniLettaError as exc:
        return _fail(terminal, str(exc), exc.exit_code)
    except BrokenPipeError:
        return 1
    except Exception as exc:
        if isinstance(exc, OSError) and not _flushes(terminal.stdout):
            # a full or closed stdout (`> /dev/full`): no bug of ours
            return _fail(terminal, f"could not write to standard output ({exc.strerror or exc})", 1)
        if terminal.environ.get("MINI_LETTA_DEBUG"):  # a bug in mini-letta
            raise
        return _fail(
            terminal, f"internal error: {exc!r} (MINI_LETTA_DEBUG=1 shows the traceback)", 1
        )


_PRINT = ("-p", "--print")


def as_claude_would(args: list[str]) -> list[str]:
    """`mini-letta [OPTIONS] -p TEXT [OPTIONS]` as `claude -p` reads it: a `chat` turn. Without
    -p, leading options (`-c`, `-r [ID]`, `--agent`, `--new`, `-m`) start the interactive
    session; a command named first is left alone."""
    if not args or not args[0].startswith("-") or not any(word in _PRINT for word in args):
        return args
    return ["chat", *("-p" if word == "--print" else word for word in args)]


def _invoke_click(args: list[str], terminal: Terminal) -> int:
    """Any command line but the plain `chat -p`: click parses it and runs the command."""
    import click

    from mini_letta.cli.commands.root import app

    try:
        rc = app.main(args=args, prog_name="mini-letta", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.UsageError as exc:  # exit 2; one line, with where to find help
        command = exc.ctx.command_path if exc.ctx else "mini-letta"
        return _fail(terminal, f"{exc.format_message()} (see `{command} --help`)", exc.exit_code)
    except click.ClickException as exc:
        return _fail(terminal, exc.format_message(), exc.exit_code)
    except click.Abort:
        return _fail(terminal, "interrupted", 130)
    return rc if isinstance(rc, int) else 0


def _fail(terminal: Terminal, message: str, code: int) -> int:
    terminal.echo(f"mini-letta: {message}", err=True)
    return code


def _flushes(stream: TextIO | None) -> bool:
    """False when `stream` cannot take what was printed (a failed flush leaves it buffered)."""
    try:
        if stream is not None:
            stream.flush()
    except (OSError, ValueError):
        return False
    return True


def run() -> None:
    """The process's entry point (the console script and `python -m mini_letta`)."""
    import gc

    # A command's start-up creates tens of thousands of objects (modules, functions, classes)
    # that live as long as the process; collecting every 700 of them cost ~20 collections and
    # ~4 ms of a mock turn. Collect every 50,000: a long interactive session still collects.
    gc.set_threshold(50_000, 10, 10)
    sys.unraisablehook = _keep_ctrl_c(sys.unraisablehook)
    try:
        code = main()
    except KeyboardInterrupt:  # Ctrl-C during start-up, before a command could catch it
        if sys.stderr is not None:
            sys.stderr.write("mini-letta: interrupted\n")
        code = 130
    sys.exit(_flush_stdout(code))


def _keep_ctrl_c(previous: Callable[[UnraisableHookArgs], object]) -> Callable[..., None]:
    """A Ctrl-C whose KeyboardInterrupt is raised inside a callback Python cannot propagate
    from (a finaliser, an import lock's weakref callback, pydantic building a validator while
    the model SDK is imported) is "ignored": the turn went on and waited for the model. Such an
    interrupt is raised again 10 ms later, from a timer signal (it also ends a blocking read),
    by when the callback has returned; anything else is told as before."""

    def hook(unraisable: UnraisableHookArgs) -> None:
        import threading

        main_thread = threading.current_thread() is threading.main_thread()
        if not (main_thread and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            previous(unraisable)
            return
        import signal

        if not hasattr(signal, "setitimer"):  # Windows: no timer signal; the flag, from a thread
            import _thread

            threading.Timer(0.01, _thread.interrupt_main).start()
            return
        before = signal.getsignal(signal.SIGALRM) or signal.SIG_DFL

        def again(signum: int, frame: object) -> None:
            signal.signal(signal.SIGALRM, before)
            raise KeyboardInterrupt

        signal.signal(signal.SIGALRM, again)
        signal.setitimer(signal.ITIMER_REAL, 0.01)

    return hook


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
        if sys.stderr is not None:
            sys.stderr.write(f"mini-letta: could not write to standard output ({exc.strerror})\n")
        return 1
    return code
