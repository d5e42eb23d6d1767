"""Listings that survive a damaged entry: load each file, keep the good, name the bad.

A listing (agents, conversations, run records) must not fail as a whole because one file in it
is corrupt or unreadable; the damaged entry is reported with its path and its problem instead,
so it is never silently hidden either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from mini_letta.errors import CorruptFileError, NotFoundError, StorageError
from mini_letta.structs import Struct

T = TypeVar("T")


class Damaged(Struct, frozen=True):
    """An entry whose file could not be loaded: `name` is its id (folder or file stem)."""

    name: str
    path: Path
    problem: str

    def to_json(self, id_key: str = "id") -> dict[str, Any]:
        return {id_key: self.name, "damaged": True, "path": str(self.path), "problem": self.problem}

    def render(self) -> str:
        return f"! {self.name}  damaged: {self.path}: {self.problem}"

    def error(self) -> CorruptFileError:
        return CorruptFileError(self.path, self.problem)


def load_each(
    entries: Iterable[tuple[str, Path]], load: Callable[[str], T]
) -> tuple[list[T], list[Damaged]]:
    """`load(name)` for each (name, file) pair; a corrupt or unreadable file becomes Damaged."""
    loaded: list[T] = []
    damaged: list[Damaged] = []
    for name, path in entries:
        try:
            loaded.append(load(name))
        except NotFoundError:  # removed while we listed: not damaged, just gone
            continue
        except CorruptFileError as exc:
            damaged.append(Damaged(name, exc.path, exc.detail))
        except StorageError as exc:
            damaged.append(Damaged(name, path, str(exc)))
    return loaded, damaged
