"""Counting the git processes an operation starts, with an audit hook (no patching).

The hook is added once per process (audit hooks cannot be removed) and records only while a
`git_calls()` block is open.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_recording: list[list[str]] = []
_installed = False


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event != "subprocess.Popen" or not _recording:
        return
    argv = [str(arg) for arg in args[1]]  # type: ignore[attr-defined]
    if argv and Path(argv[0]).name == "git":
        _recording[-1].append(subcommand(argv[1:]))


def subcommand(args: list[str]) -> str:
    """The git subcommand of an argument list (after `-C dir` and `-c key=value`)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-C", "-c"):
            skip = True
        elif not arg.startswith("-"):
            return arg
    return "git"


@contextmanager
def git_calls() -> Iterator[list[str]]:
    """The subcommands of the git processes started inside the block, in order."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    calls: list[str] = []
    _recording.append(calls)
    try:
        yield calls
    finally:
        _recording.pop()
