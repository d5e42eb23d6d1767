"""Throwaway homes for the evals: one agent made once, then a copy of its home per case.

A copy costs a fraction of a new agent (no `git init`, no first commit, no agent record to
write). The template is read once, when it is made, into a list of its folders and files;
each copy replays that list instead of walking and stat-ing the template again and copying
extended attributes it never has (`shutil.copytree`: about 3 ms of CPU a copy, the replay
0.5 ms). Git never rewrites an object file in place (it writes a new file and renames it, and
prunes by unlinking), so a copy links the objects instead of copying their bytes, and leaves
out the sample hooks `git init` writes (never run: mini-letta runs git without hooks); every
other file is written anew with its mode and times, as `shutil.copy2` would.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock
from mini_letta.home import Home
from mini_letta.structs import Struct
from mini_letta.workspace import World

_OBJECTS = f"{os.sep}.git{os.sep}objects{os.sep}"  # files git only adds and removes


class EntryKind(StrEnum):
    FOLDER = "folder"
    LINK = "link"  # a git object: hard-linked into each copy
    FILE = "file"  # written anew in each copy, with its mode and times


class TemplateEntry(Struct, frozen=True):
    path: str  # relative to the template's root
    kind: EntryKind
    data: bytes = b""  # a file's bytes
    mode: int = 0o644
    times: tuple[int, int] = (0, 0)  # access and modification, in nanoseconds


class AgentTemplate(Struct, frozen=True):
    root: Path  # holds home/ and project/
    agent: AgentRecord
    entries: tuple[TemplateEntry, ...] = ()  # what a copy holds, read when it was made


def make_template(
    root: Path,
    environ: Mapping[str, str],
    clock: Clock,
    model: str,
    context_window: int | None = None,
) -> AgentTemplate:
    """A fresh agent on `model` in a new home under `root` (MiniLettaError if it cannot be
    made, e.g. an unknown model)."""
    from mini_letta.workspace import new_agent

    (root / "project").mkdir(parents=True)
    world = World(Home(root / "home"), root / "project", environ, clock)
    return read_template(root, new_agent(world, model=model, context_window=context_window))


def read_template(root: Path, agent: AgentRecord) -> AgentTemplate:
    """`root` (holding home/ and project/ with `agent` made in it) as a template: its folders
    and files listed and read now; nothing under `root` may change after this."""
    return AgentTemplate(root, agent, _entries(root))


def copy_template(
    template: AgentTemplate, into: Path, environ: Mapping[str, str], clock: Clock
) -> World:
    """A world on a copy of the template's home and project in `into` (an empty folder, or
    one holding only empty folders the copy also has)."""
    os.makedirs(into, exist_ok=True)
    for entry in template.entries:
        target = os.path.join(into, entry.path)
        if entry.kind is EntryKind.FOLDER:
            os.makedirs(target, exist_ok=True)
        elif entry.kind is EntryKind.FILE:
            _write(target, entry, entry.data)
        else:
            source = template.root / entry.path
            if not _linked(source, target):
                _write(target, entry, source.read_bytes())
    return World(Home(into / "home"), into / "project", environ, clock)


@contextmanager
def copied_home(
    template: AgentTemplate, environ: Mapping[str, str], clock: Clock
) -> Iterator[World]:
    """A world on a copy of the template's home for one case, removed after it."""
    with tempfile.TemporaryDirectory(prefix="case-", dir=template.root.parent) as tmp:
        yield copy_template(template, Path(tmp), environ, clock)


def _entries(root: Path) -> tuple[TemplateEntry, ...]:
    """Every folder and file under `root` (a new agent's: no symbolic links), parents before
    children, but git's sample hooks."""
    entries: list[TemplateEntry] = []
    for top, folders, names in os.walk(root):
        folders.sort()
        base = os.path.relpath(top, root)
        entries += [
            TemplateEntry(os.path.normpath(os.path.join(base, name)), EntryKind.FOLDER)
            for name in folders
        ]
        if top.endswith(f"{os.sep}.git{os.sep}hooks"):
            names = [name for name in names if not name.endswith(".sample")]
        for name in sorted(names):
            path = os.path.join(top, name)
            rel = os.path.normpath(os.path.join(base, name))
            info = os.stat(path)
            kind = EntryKind.LINK if _OBJECTS in os.sep + rel else EntryKind.FILE
            data = b"" if kind is EntryKind.LINK else Path(path).read_bytes()
            times = (info.st_atime_ns, info.st_mtime_ns)
            entries.append(TemplateEntry(rel, kind, data, info.st_mode & 0o7777, times))
    return tuple(entries)


def _linked(source: Path, target: str) -> bool:
    try:
        os.link(source, target)
    except OSError:  # no hard links here (another device, a file system without them): copy
        return False
    return True


def _write(target: str, entry: TemplateEntry, data: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, entry.mode)
    try:
        os.fchmod(fd, entry.mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.utime(target, ns=entry.times)
