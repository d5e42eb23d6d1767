"""Watching which files an operation opens and replaces, with an audit hook (no patching).

The hook is added once per process (audit hooks cannot be removed) and records only while a
`file_events()` block is open.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mini_letta.structs import Struct


class FileEvents(Struct):
    """What happened to files inside a block, in order: paths read, and the targets of renames."""

    opened: list[Path]  # for reading only
    replaced: list[Path]

    def reads(self, path: Path) -> int:
        return self.opened.count(path)

    def replaces(self, path: Path) -> int:
        return self.replaced.count(path)


_recording: list[FileEvents] = []
_installed = False


def _hook(event: str, args: tuple[object, ...]) -> None:
    if not _recording or event not in ("open", "os.rename"):
        return
    if event == "open":
        target, mode, flags = args[0], args[1], args[2]
        writing = (
            any(c in mode for c in "wax+")
            if isinstance(mode, str)
            else isinstance(flags, int) and flags & os.O_ACCMODE != os.O_RDONLY
        )
        if not writing and isinstance(target, str | bytes | os.PathLike):
            _recording[-1].opened.append(Path(os.fsdecode(target)))
    else:
        _recording[-1].replaced.append(Path(os.fsdecode(args[1])))  # type: ignore[arg-type]


@contextmanager
def file_events() -> Iterator[FileEvents]:
    """The files opened for reading and renamed onto inside the block."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    events = FileEvents([], [])
    _recording.append(events)
    try:
        yield events
    finally:
        _recording.pop()
