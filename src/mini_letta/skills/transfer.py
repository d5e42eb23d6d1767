"""Moving skill folders in and out: `skills import` (a folder or a git URL) and `skills export`.

A git URL is cloned with the hardened git of `gitsafe.py` (no hook, filter, credential helper
or ssh command the repository names runs), shallow, into a temporary folder that is always
removed. What is copied is checked first: every skill must pass the standard's validation, its
folder is copied without hidden names (`.git`) and without symlinks, within file-count and size
limits, and a skill going into memory must hold no secret. A copy lands in a temporary sibling
folder and is renamed into place, so a failure leaves nothing half-written; into memory it is
committed under the memory lock, so it is versioned and synced like every memory file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from mini_letta.errors import InvalidValueError, MiniLettaError, NotFoundError
from mini_letta.skills.discover import read_skill_text
from mini_letta.skills.format import SKILL_FILE, Problem, Skill, parse_skill

MAX_FILES = 500
MAX_BYTES = 10 * 1024 * 1024
CLONE_TIMEOUT = 120.0


class SkillImportError(MiniLettaError):
    """A skill that cannot be imported (invalid, too big, a secret, a name taken)."""


def is_git_url(source: str) -> bool:
    return "://" in source or source.startswith("git@") or source.endswith(".git")


def import_skills(
    source: str, dest: Path, environ: Mapping[str, str], *, scan_secrets: bool = False
) -> list[tuple[Skill, Path]]:
    """Copy every skill `source` holds into `dest/<name>/`; (skill as found, new folder) each."""
    with tempfile.TemporaryDirectory(prefix="mini-letta-skill-") as scratch:
        if is_git_url(source):
            origin = _clone(source, Path(scratch), environ)
        else:
            origin = Path(source).expanduser()
            if not origin.is_dir():
                raise NotFoundError(f"{source} is not a folder or a git URL")
        skills = _skills_in(origin)
        for skill in skills:
            if (dest / skill.name).exists():
                raise SkillImportError(
                    f"a skill named {skill.name!r} already exists in {dest}; remove it first"
                )
            _check_tree(skill.folder, scan_secrets)
        return [(skill, copy_skill_folder(skill.folder, dest, skill.name)) for skill in skills]


def export_skill(skill: Skill, out_dir: Path) -> Path:
    target = out_dir / skill.name
    if target.exists():
        raise SkillImportError(f"{target} already exists; choose another -o folder")
    _check_tree(skill.folder, scan_secrets=False)
    return copy_skill_folder(skill.folder, out_dir, skill.name)


def _clone(url: str, scratch: Path, environ: Mapping[str, str]) -> Path:
    from mini_letta.memory.repo import GitRepo, ensure_git_available

    ensure_git_available(environ.get("PATH"))
    runner = GitRepo(scratch, timeout=CLONE_TIMEOUT, environ=environ, user_config=True)
    runner.run("clone", "-q", "--depth", "1", "--", url, "clone")
    return scratch / "clone"


def _skills_in(origin: Path) -> list[Skill]:
    """The skill at `origin` itself, else each skill folder one level down (or in `skills/`)."""
    if (origin / SKILL_FILE).is_file():
        return [_load(origin, match_folder=False)]  # a repository's name need not be the skill's
    base = origin / "skills" if (origin / "skills").is_dir() else origin
    folders = sorted(
        p
        for p in base.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / SKILL_FILE).is_file()
    )
    if not folders:
        raise NotFoundError(f"no {SKILL_FILE} in {origin} or the folders just below it")
    return [_load(folder, match_folder=True) for folder in folders]


def _load(folder: Path, *, match_folder: bool) -> Skill:
    if (folder / SKILL_FILE).is_symlink():  # it would be read from elsewhere, and not copied
        raise SkillImportError(f"{folder / SKILL_FILE} is a symlink; import the folder it names")
    text = read_skill_text(folder / SKILL_FILE)
    problems = [text] if isinstance(text, Problem) else []
    skill = None
    if isinstance(text, str):
        skill, problems = parse_skill(text, folder.name if match_folder else None)
    if skill is None or problems or not isinstance(text, str):
        lines = "; ".join(problem.render() for problem in problems)
        raise SkillImportError(f"{folder} is not a valid skill: {lines}")
    return Skill(skill, "project", str(folder.parent), folder, len(text.encode("utf-8")))


def _check_tree(folder: Path, scan_secrets: bool) -> None:
    count, size = 0, 0
    for current, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            path = Path(current) / name
            if name.startswith(".") or path.is_symlink():
                continue
            count += 1
            size += path.stat().st_size
            if count > MAX_FILES or size > MAX_BYTES:
                raise SkillImportError(
                    f"{folder} is too big to import (over {MAX_FILES} files or "
                    f"{MAX_BYTES // (1024 * 1024)} MB)"
                )
            if scan_secrets:
                _refuse_secret(path, folder)


def _refuse_secret(path: Path, folder: Path) -> None:
    from mini_letta.memory.secrets import find_secret

    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return  # a binary asset: nothing the scanner reads
    kind = find_secret(data.decode("utf-8", "replace"))
    if kind:
        raise SkillImportError(
            f"{path.relative_to(folder)} holds what looks like a secret ({kind}); "
            "memory never stores one, so the skill was not imported"
        )


def copy_skill_folder(folder: Path, dest: Path, name: str) -> Path:
    """`folder` copied to `dest/name` (hidden names and symlinks left out), all or nothing."""
    if not name or "/" in name or name.startswith("."):
        raise InvalidValueError(f"{name!r} cannot be a skill folder's name")
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=dest))
    try:
        for current, dirs, names in os.walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            rel = Path(current).relative_to(folder)
            (staging / rel).mkdir(parents=True, exist_ok=True)
            for file_name in names:
                source = Path(current) / file_name
                if file_name.startswith(".") or source.is_symlink() or not source.is_file():
                    continue
                shutil.copy2(source, staging / rel / file_name)
        target = dest / name
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def import_into_memory(
    memory_dir: Path, source: str, environ: Mapping[str, str]
) -> list[tuple[Skill, Path]]:
    """`import_skills` into the memory repo's `skills/`, committed as one commit (or nothing:
    the copied folders are removed again when the commit fails)."""
    from mini_letta.home import memory_skills_dir
    from mini_letta.memory.repo import GitRepo, lock_memory

    with lock_memory(memory_dir):
        done = import_skills(source, memory_skills_dir(memory_dir), environ, scan_secrets=True)
        paths = [
            Path(current, name).relative_to(memory_dir).as_posix()
            for _, folder in done
            for current, _, names in os.walk(folder)
            for name in names
        ]
        names = ", ".join(skill.name for skill, _ in done)
        try:
            GitRepo(memory_dir).commit_paths(sorted(paths), f"skills: import {names}")
        except BaseException:
            for _, folder in done:
                shutil.rmtree(folder, ignore_errors=True)
            raise
    return done
