"""Where the file tools may go: the working directory, the agent's memory and the folders of
the skills found for this session (read-only, so a skill's bundled files can be read), nothing
else.

A path is resolved against the working directory with symlinks followed, and only then checked,
so `../x`, `~/x`, an absolute path or a symlink pointing outside are all refused the same way.
Read, Write, Edit, Grep and Glob share this one check (`Confinement`); Grep and Glob apply it to
every file they list. Memory is readable here but changed only through the `memory` tool. Write
and Edit never touch a git directory (git runs programs its config names) nor mini-letta's own
state (`.mini-letta/`, the home folder), at any depth, whatever the case or the route.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

from mini_letta.home import PROJECT_DIR_NAME
from mini_letta.structs import Struct
from mini_letta.tools.base import ToolContext, ToolInputError

Area = Literal["cwd", "memory", "skill"]

# Folder names the file tools never write into. Compared case-folded, without the trailing dots
# and spaces Windows drops, plus git's NTFS short name, since a case-insensitive filesystem
# (macOS, Windows) opens `.GIT/config` as `.git/config`.
_GIT_NAMES = frozenset({".git", "git~1"})
_STATE_NAMES = frozenset({PROJECT_DIR_NAME})


class PathRefusedError(ToolInputError):
    """A path outside what the tools may touch; shown to the model."""


def _inside(path: Path | str, root: Path | str) -> bool:
    """Whether `path` is `root` or below it (both absolute and symlink-free)."""
    text, base = str(path), str(root)
    return text == base or text.startswith(base if base.endswith(os.sep) else base + os.sep)


def _folded(name: str) -> str:
    return name.rstrip(" .").casefold()


class Confinement(Struct, frozen=True):
    """The real roots a tool call may reach, resolved once per call."""

    cwd: Path
    memory: Path | None
    home: Path | None
    skills: tuple[Path, ...] = ()

    @classmethod
    def of(cls, ctx: ToolContext) -> Confinement:
        return cls(
            ctx.cwd.resolve(),
            ctx.memory_dir.resolve() if ctx.memory_dir is not None else None,
            ctx.home.root.resolve() if ctx.home is not None else None,
            tuple(folder.resolve() for folder in ctx.skill_dirs),
        )

    def area(self, real: Path | str) -> Area | None:
        """Where a symlink-free path lies: memory (checked first), working directory, or neither."""
        if self.memory is not None and _inside(real, self.memory):
            return "memory"
        if _inside(real, self.cwd):
            return "cwd"
        if any(_inside(real, folder) for folder in self.skills):
            return "skill"
        return None

    def check(self, raw: str, lexical: Path, real: Path, *, for_edit: bool = False) -> Path:
        """`real` (what `lexical` resolves to) when the call may use it; else PathRefusedError."""
        area = self.area(real)
        if area == "memory" and for_edit:
            raise PathRefusedError(
                f"{raw} is in the agent's memory; change memory with the memory tool, "
                "which validates and commits"
            )
        if area == "skill" and for_edit:
            raise PathRefusedError(f"{raw} is part of a skill, which the file tools only read")
        if area is None:
            places = (
                "the agent's memory and the skills' folders"
                if self.skills
                else ("the agent's memory")
            )
            raise PathRefusedError(
                f"{raw} resolves to {real}, outside the working directory ({self.cwd}) and "
                f"{places}; only files there can be used"
            )
        if for_edit:
            self._check_writable(raw, lexical, real)
        return real

    def _check_writable(self, raw: str, lexical: Path, real: Path) -> None:
        names = [_folded(part) for part in real.relative_to(self.cwd).parts]
        if _inside(lexical, self.cwd):  # the name used may be a symlink: `.git -> elsewhere`
            names += [_folded(part) for part in lexical.relative_to(self.cwd).parts]
        if any(name in _GIT_NAMES for name in names) or _in_git_dir(real, self.cwd):
            raise PathRefusedError(
                f"{raw} is inside a git directory; the file tools never change one, because "
                "git runs the programs its config and hooks name"
            )
        if any(name in _STATE_NAMES for name in names) or (
            self.home is not None and _inside(real, self.home)
        ):
            raise PathRefusedError(
                f"{raw} is mini-letta's own state (settings, agents, conversations); the file "
                "tools never change it, use mini-letta's commands"
            )

    def files(self, root: Path, rels: Iterable[str]) -> Iterator[tuple[str, str]]:
        """(rel, real path) for each listed entry that is a regular file this call may read.

        Entries whose real path lies outside (a symlink, or a symlinked folder on the way) are
        left out, as are folders, sockets and FIFOs. Each folder is resolved once.
        """
        real_dirs: dict[str, str] = {}
        for rel in rels:
            folder, _, name = rel.rpartition("/")
            real_dir = real_dirs.get(folder)
            if real_dir is None:
                real_dir = real_dirs[folder] = os.path.realpath(root / folder)
            real = os.path.join(real_dir, name)
            try:
                info = os.lstat(real)
                if stat.S_ISLNK(info.st_mode):
                    real = os.path.realpath(real, strict=True)
                    info = os.stat(real)
            except (OSError, RuntimeError):  # vanished, dangling, or a symlink loop
                continue
            if stat.S_ISREG(info.st_mode) and self.area(real) is not None:
                yield rel, real


def _in_git_dir(real: Path, cwd: Path) -> bool:
    """True when a folder between cwd and `real` is a git directory under any name."""
    folder = real.parent
    while _inside(folder, cwd):
        if (
            (folder / "HEAD").is_file()
            and (folder / "objects").is_dir()
            and (folder / "refs").is_dir()
        ):
            return True
        if folder == cwd:
            return False
        folder = folder.parent
    return False


def resolve_tool_path(raw: str, ctx: ToolContext, *, for_edit: bool = False) -> Path:
    """The real path for `raw`; refuses anything outside the working directory and memory."""
    if not raw.strip():
        raise ToolInputError("'path' must not be empty")
    if "\x00" in raw:
        raise ToolInputError("'path' must not contain NUL characters")
    confinement = Confinement.of(ctx)
    joined = confinement.cwd / Path(raw).expanduser()  # an absolute path replaces cwd
    lexical = Path(os.path.normpath(joined))
    return confinement.check(raw, lexical, joined.resolve(), for_edit=for_edit)


def display_path(path: Path, ctx: ToolContext) -> str:
    """A path as the model should see it: relative to the working directory when inside it."""
    cwd = ctx.cwd.resolve()
    try:
        return str(path.relative_to(cwd)) or "."
    except ValueError:
        return str(path)
