"""The package's warnings: a line on the running command's stderr, else Python's logging.

A CLI command sends them to its terminal (`warnings_to`): those its own thread logs and those
of helper threads (a reflection watcher); a command running on another thread shows its own
on its own terminal. With no command running (mini-letta used as a library) every message
goes to the `mini_letta` logger. `logging` is imported only then: importing it costs about
5 ms, a twentieth of a mock turn, and a turn that warns of nothing needs none of it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

LOGGER = "mini_letta"

# (thread, stream) of each command running in this process; replaced whole, never changed.
_routes: tuple[tuple[int, TextIO], ...] = ()
_routes_lock = threading.Lock()


@contextmanager
def warnings_to(stream: TextIO) -> Iterator[None]:
    """Show warnings as `mini-letta: warning: ...` lines on `stream` while a command runs on
    this thread; info and debug messages are dropped meanwhile."""
    global _routes
    route = (threading.get_ident(), stream)
    with _routes_lock:
        _routes = (*_routes, route)
    try:
        yield
    finally:
        with _routes_lock:
            _routes = tuple(r for r in _routes if r is not route)


def warning(message: str, *args: object) -> None:
    _emit(30, "mini-letta: warning: ", message, args)


def notice(message: str, *args: object) -> None:
    """Something the user should know that is not wrong (`mini-letta: ...` on stderr)."""
    _emit(20, "mini-letta: ", message, args)


def to_a_person() -> bool:
    """This command's messages reach a terminal (not a script's captured stderr): hints that
    would only be noise in a pipeline are said only then."""
    me = threading.get_ident()
    for owner, stream in _routes:
        if owner == me:
            try:
                return stream.isatty()
            except (OSError, ValueError):
                return False
    return False


def _emit(level: int, prefix: str, message: str, args: tuple[object, ...]) -> None:
    routes = _routes
    if not routes:
        _to_logging(level, message, args)
        return
    me = threading.get_ident()
    streams = [stream for owner, stream in routes if owner == me]
    line = f"{prefix}{_format(message, args)}\n"
    for stream in streams or [stream for _, stream in routes]:  # a helper thread's: to all
        try:
            stream.write(line)
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed or full stderr loses the warning, never the command


def _format(message: str, args: tuple[object, ...]) -> str:
    """`message % args`; a message that does not fit its arguments is shown as it is, with
    them, rather than failing the command that warned."""
    if not args:
        return message
    try:
        return message % args
    except (TypeError, ValueError):
        return f"{message} {args!r}"


def info(message: str, *args: object) -> None:
    if not _routes:
        _to_logging(20, message, args)


def debug(message: str, *args: object) -> None:
    if not _routes:
        _to_logging(10, message, args)


def _to_logging(level: int, message: str, args: tuple[object, ...]) -> None:
    import logging

    logging.getLogger(LOGGER).log(level, message, *args)
