"""Throwaway homes for the evals: one agent made once, then a copy of its home per case.

A copy costs a fraction of a new agent (no `git init`, no first commit, no agent record to
write). Git never rewrites an object file in place (it writes a new file and renames it, and
prunes by unlinking), so a copy links the objects instead of copying their bytes, and leaves
out the sample hooks `git init` writes (never run: mini-letta runs git without hooks); every
other file is copied with its times, so the copy's index stays fresh and git need not re-read
the files to trust it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock
from mini_letta.home import Home
from mini_letta.structs import Struct
from mini_letta.workspace import World

_OBJECTS = f"{os.sep}.git{os.sep}objects{os.sep}"  # files git only adds and removes


class AgentTemplate(Struct, frozen=True):
    root: Path  # holds home/ and project/
    agent: AgentRecord


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
    return AgentTemplate(root, new_agent(world, model=model, context_window=context_window))


def copy_template(
    template: AgentTemplate, into: Path, environ: Mapping[str, str], clock: Clock
) -> World:
    """A world on a copy of the template's home and project in `into` (an empty folder)."""
    shutil.copytree(
        template.root,
        into,
        symlinks=True,
        dirs_exist_ok=True,
        copy_function=_copy_or_link,
        ignore=_sample_hooks,
    )
    return World(Home(into / "home"), into / "project", environ, clock)


@contextmanager
def copied_home(
    template: AgentTemplate, environ: Mapping[str, str], clock: Clock
) -> Iterator[World]:
    """A world on a copy of the template's home for one case, removed after it."""
    with tempfile.TemporaryDirectory(prefix="case-", dir=template.root.parent) as tmp:
        yield copy_template(template, Path(tmp), environ, clock)


def _copy_or_link(source: str, target: str) -> object:
    if _OBJECTS in source:
        try:
            os.link(source, target)
            return target
        except OSError:
            pass  # no hard links here (another device, a file system without them): copy
    return shutil.copy2(source, target)


def _sample_hooks(folder: str, names: list[str]) -> list[str]:
    if not folder.endswith(f"{os.sep}.git{os.sep}hooks"):
        return []
    return [name for name in names if name.endswith(".sample")]
