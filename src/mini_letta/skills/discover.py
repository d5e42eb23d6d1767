"""Finding skills: five folders in precedence order, each skill checked against the standard.

Precedence, first wins: the agent's memory (`skills/` in the memory repo, versioned and synced
with it), the project (`.agents/skills/`, then `.claude/skills/` under the working directory),
the user (`~/.agents/skills/`, then `~/.claude/skills/`, with the home folder taken from the
environment the caller passes). A folder that is not a valid skill is skipped and reported
once with the rule it breaks; a skill hidden by one of the same name earlier in the order is
kept in `shadowed`, so a clash can be shown. Only SKILL.md files are read (the body is cut off
the frontmatter and kept; bundled files are listed only when a skill is loaded).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

from mini_letta.home import memory_skills_dir, skill_folders, user_home_dir
from mini_letta.skills.format import (
    MAX_SKILL_BYTES,
    SKILL_FILE,
    SOURCES,
    Problem,
    Skill,
    Source,
    parse_skill,
)
from mini_letta.structs import Struct

MAX_BUNDLED_FILES = 200  # listed when a skill loads; more are summarised


class SkillRoot(Struct, frozen=True):
    source: Source
    label: str  # as the user knows it: `memory skills/`, `.claude/skills`, `~/.agents/skills`
    path: Path


class InvalidSkill(Struct, frozen=True):
    folder: Path
    label: str
    problems: tuple[Problem, ...]

    def render(self) -> str:
        more = len(self.problems) - 1
        rest = f" (and {more} more problem(s); `mini-letta skills validate` lists them)"
        return f"skipped the skill in {self.folder}: {self.problems[0].render()}" + (
            rest if more > 0 else ""
        )


class Shadowed(Struct, frozen=True):
    skill: Skill
    by: Skill

    def render(self) -> str:
        return (
            f"skill {self.skill.name!r} in {self.skill.label} is hidden by the one in "
            f"{self.by.label} (earlier in the order: memory, project, user)"
        )


class Catalog(Struct, frozen=True):
    skills: tuple[Skill, ...] = ()  # the winners, in precedence order, then by name
    invalid: tuple[InvalidSkill, ...] = ()
    shadowed: tuple[Shadowed, ...] = ()

    def get(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = dict.fromkeys(SOURCES, 0)
        for skill in self.skills:
            found[skill.source] += 1
        return found

    def folders(self, *keep_out: Path) -> tuple[Path, ...]:
        """The skills' real folders the file tools may read: none that is the file system's
        root or holds one of `keep_out` (the project, the user's home), which a skill folder
        symlinked there would otherwise open up."""
        found: list[Path] = []
        for skill in self.skills:
            real = skill.folder.resolve()
            if real == real.parent or any(p.resolve().is_relative_to(real) for p in keep_out):
                continue
            found.append(real)
        return tuple(found)


def skill_roots(
    memory_dir: Path | None, project_dir: Path | None, environ: Mapping[str, str]
) -> tuple[SkillRoot, ...]:
    """The five places skills live, in precedence order (absent ones are simply empty)."""
    roots: list[SkillRoot] = []
    if memory_dir is not None:
        roots.append(SkillRoot("memory", "memory skills/", memory_skills_dir(memory_dir)))
    if project_dir is not None:
        roots += [SkillRoot("project", label, path) for label, path in skill_folders(project_dir)]
    home = user_home_dir(environ)
    if home is not None:
        roots += [SkillRoot("user", f"~/{label}", path) for label, path in skill_folders(home)]
    return tuple(roots)


def discover_skills(roots: tuple[SkillRoot, ...]) -> Catalog:
    winners: dict[str, Skill] = {}
    invalid: list[InvalidSkill] = []
    shadowed: list[Shadowed] = []
    for root in roots:
        for name, path in _skill_folders(root.path):
            found = _read(name, path, root)
            if isinstance(found, InvalidSkill):
                invalid.append(found)
            elif found.name in winners:
                shadowed.append(Shadowed(found, winners[found.name]))
            else:
                winners[found.name] = found
    return Catalog(tuple(winners.values()), tuple(invalid), tuple(shadowed))


def _skill_folders(root: Path) -> Iterator[tuple[str, str]]:
    """(name, path) of each folder in `root`, as strings: start-up builds no Path per entry."""
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError:  # absent, or not a folder: no skills there
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir():  # a symlinked skill folder counts: people link shared skills
                yield entry.name, entry.path
        except OSError:
            continue


def read_skill(folder: Path, root: SkillRoot) -> Skill | InvalidSkill:
    """The skill in `folder`, or why it is not one."""
    return _read(folder.name, str(folder), root, folder)


def _read(
    name: str, path: str, root: SkillRoot, folder: Path | None = None
) -> Skill | InvalidSkill:
    """`folder` defaults to `root.path / name` (a join costs less than parsing `path`)."""
    text = read_skill_text(os.path.join(path, SKILL_FILE))
    if isinstance(text, Problem):
        return InvalidSkill(folder or root.path / name, root.label, (text,))
    skill, problems = parse_skill(text, name)
    if skill is None or problems:
        return InvalidSkill(folder or root.path / name, root.label, tuple(problems))
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    return Skill(skill, root.source, root.label, folder or root.path / name, size)


def read_skill_text(path: Path | str) -> str | Problem:
    """A SKILL.md's text: a regular UTF-8 file under the size limit, or the rule it breaks.

    One open, fstat and read a file (start-up reads every SKILL.md); O_NONBLOCK so a FIFO
    named SKILL.md is refused instead of waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return Problem("skill-file", f"no {SKILL_FILE} in the folder")
    except OSError as exc:
        return Problem("skill-file", f"{SKILL_FILE} cannot be read ({exc.strerror})")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Problem("skill-file", f"{SKILL_FILE} is not a regular file")
        if info.st_size > MAX_SKILL_BYTES:
            return Problem(
                "size", f"{SKILL_FILE} is {info.st_size} bytes, over the {MAX_SKILL_BYTES} limit"
            )
        data = os.read(fd, info.st_size + 1)  # sized: a 256 KB buffer per file costs more
    except OSError as exc:
        return Problem("skill-file", f"{SKILL_FILE} cannot be read ({exc.strerror})")
    finally:
        os.close(fd)
    if len(data) > MAX_SKILL_BYTES:  # grew while we read it
        return Problem("size", f"{SKILL_FILE} is over the {MAX_SKILL_BYTES} byte limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem("encoding", f"{SKILL_FILE} is not UTF-8 text (byte {exc.start})")


def bundled_files(folder: Path, limit: int = MAX_BUNDLED_FILES) -> tuple[list[str], int]:
    """(up to `limit` relative paths, total count) of the regular files a skill folder bundles,
    SKILL.md and hidden names left out. Symlinks are listed only when they stay inside."""
    real_root = os.path.realpath(folder)
    found: list[str] = []
    total = 0
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or (current == str(folder) and name == SKILL_FILE):
                continue
            full = os.path.join(current, name)
            real = os.path.realpath(full)
            if not real.startswith(real_root + os.sep) or not os.path.isfile(real):
                continue
            total += 1
            if len(found) < limit:
                found.append(Path(full).relative_to(folder).as_posix())
    return found, total
