"""A memory that is gone or broken: say so, and re-create it only when asked.

An agent's memory repository is made once, with the agent. Afterwards a missing folder, a lost
`.git` or a HEAD that names no commit means history (and undo) are gone, so nothing re-creates
it behind the user's back: `memory_problem` says what is wrong, and `recover_memory` (the
`memory recover` command) moves whatever is left aside, never deleting it, and starts a new
repository whose first commit holds the `.md` files that were still on disk.
"""

from __future__ import annotations

import os
from pathlib import Path

from mini_letta.clock import Clock
from mini_letta.errors import MemfsError
from mini_letta.memory.repo import GitRepo, init_memory_repo, lock_memory
from mini_letta.storage.atomic import quarantine_file
from mini_letta.structs import Struct


class Recovery(Struct, frozen=True):
    aside: Path | None  # where the old folder went (None: there was none)
    kept: tuple[str, ...]  # the .md files carried over into the first commit


def memory_problem(memory_dir: Path) -> str | None:
    """What is wrong with a memory checkout, or None when HEAD names a commit (a few reads)."""
    git_dir = memory_dir / ".git"
    if not memory_dir.is_dir():
        return "is missing"
    if not git_dir.is_dir():
        return "has lost its .git folder (its history)"
    # Checked before asking git: without HEAD, git would look for a repository further up.
    if not (git_dir / "HEAD").is_file() or GitRepo(memory_dir).head_sha_or_none() is None:
        return "has a broken .git (HEAD names no commit)"
    return None


def require_memory(memory_dir: Path, owner: str) -> None:
    """MemfsError naming the folder and `memory recover` when the memory is gone or broken."""
    problem = memory_problem(memory_dir)
    if problem is not None:
        raise MemfsError(
            f"the memory of agent {owner} ({memory_dir}) {problem}; nothing was re-created: "
            "`mini-letta memory recover` starts it again from the .md files still there and "
            "keeps the old folder"
        )


def recover_memory(memory_dir: Path, clock: Clock, *, empty: bool = False) -> Recovery | None:
    """Start the memory again; None when it was fine. The old folder becomes
    `memory.corrupt-<timestamp>`; unless `empty`, its `.md` files (not symlinks) are the new
    repository's first commit, beside default persona and human files where those are missing."""
    with lock_memory(memory_dir):
        if memory_problem(memory_dir) is None:
            return None
        aside = quarantine_file(memory_dir, clock.now()) if os.path.lexists(memory_dir) else None
        kept = () if empty or aside is None else _copy_markdown(aside, memory_dir)
        message = f"Recover memory ({len(kept)} file(s) kept from {aside.name})" if aside else None
        init_memory_repo(memory_dir, keep=kept, message=message or "Initialize memory")
    return Recovery(aside, kept)


def _copy_markdown(source: Path, target: Path) -> tuple[str, ...]:
    import shutil

    copied: list[str] = []
    if not source.is_dir() or source.is_symlink():
        return ()
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if not name.endswith(".md") or path.is_symlink():
                continue
            rel = path.relative_to(source)
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / rel)
            copied.append(rel.as_posix())
    return tuple(copied)
