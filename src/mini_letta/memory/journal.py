"""`agents/<id>/memory-edit.json`: the memory edit being written, so a killed writer is finished.

A memory edit writes its files, then commits them. A process stopped in between (MCP hosts stop
servers with SIGTERM, a terminal closes) used to leave modified files that every writer then
refused. So `write_and_commit` writes this journal first (the touched paths with their bytes
before and a hash of their bytes after, and the commit message) and removes it once committed
or rolled back. Whoever takes the memory lock next (`lock_memory`) settles a journal left
behind: if every file holds the planned bytes the edit is committed, as its writer meant to,
with a line saying it was finished late; otherwise the files it had touched are put back. Either
way a warning names the files, and the journal is gone: never a dead end.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from mini_letta import log
from mini_letta.home import memory_journal_file
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.structs import Struct

SCHEMA_VERSION = 1
FINISHED_NOTE = "Finished after its writer was stopped between writing and committing."


class EditJournal(Struct, frozen=True):
    message: str
    before: Mapping[str, bytes | None]  # None: the file did not exist
    after: Mapping[str, str | None]  # sha256 of the planned bytes; None: deleted

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "message": self.message,
            "files": {
                path: {
                    "before": None if data is None else base64.b64encode(data).decode("ascii"),
                    "after": self.after.get(path),
                }
                for path, data in self.before.items()
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EditJournal:
        message, files = data.get("message"), data.get("files")
        if not isinstance(message, str) or not isinstance(files, dict):
            raise ValueError("a memory edit journal needs message and files")
        before: dict[str, bytes | None] = {}
        after: dict[str, str | None] = {}
        for path, entry in files.items():
            old, new = entry.get("before"), entry.get("after")
            if (
                old is not None
                and not isinstance(old, str)
                or new is not None
                and not isinstance(new, str)
            ):
                raise ValueError(f"a memory edit journal entry for {path!r} is malformed")
            before[path] = None if old is None else base64.b64decode(old, validate=True)
            after[path] = new
        return cls(message, before, after)


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def begin_edit(
    memory_dir: Path, message: str, before: Mapping[str, bytes | None], writes: Mapping[str, bytes]
) -> None:
    """Write the journal of an edit about to touch `before`'s paths (`writes`: the new bytes)."""
    after = {path: digest(writes.get(path)) for path in before}
    save_json(memory_journal_file(memory_dir), EditJournal(message, before, after).to_json())


def end_edit(memory_dir: Path) -> None:
    memory_journal_file(memory_dir).unlink(missing_ok=True)


class _Repo(Protocol):
    def changed_paths(self, paths: Sequence[str] = ()) -> list[str]: ...
    def commit_paths(self, paths: Sequence[str], message: str) -> str | None: ...
    def run(self, *args: str, check: bool = True) -> str: ...


def settle_interrupted_edit(memory_dir: Path, repo: _Repo) -> str | None:
    """Finish or roll back an edit whose writer was stopped (the caller holds the memory lock);
    returns what was done, or None when there was nothing to settle."""
    path = memory_journal_file(memory_dir)
    try:
        data = load_json(path)
    except Exception as exc:  # a torn journal: nothing can be trusted in it
        log.warning("memory: an unreadable edit journal was set aside (%s)", exc)
        path.unlink(missing_ok=True)
        return None
    if data is None:
        return None
    try:
        journal = EditJournal.from_json(data)
    except (ValueError, TypeError, AttributeError) as exc:
        log.warning("memory: an unreadable edit journal was set aside (%s)", exc)
        path.unlink(missing_ok=True)
        return None
    done = _settle(memory_dir, journal, repo)
    path.unlink(missing_ok=True)
    log.warning("memory: %s", done)
    return done


def _settle(memory_dir: Path, journal: EditJournal, repo: _Repo) -> str:
    from mini_letta.errors import MemfsError

    paths = sorted(journal.before)
    current = {p: _current(memory_dir, p) for p in paths}
    names = ", ".join(paths)
    if all(digest(current[p]) == journal.after[p] for p in paths):
        if not repo.changed_paths(paths):
            return f"the interrupted edit of {names} had been committed"
        try:
            repo.commit_paths(paths, f"{journal.message}\n\n{FINISHED_NOTE}")
        except MemfsError as exc:
            log.warning("memory: could not finish the interrupted edit (%s)", exc)
        else:
            return f"finished the interrupted edit of {names} ({journal.message.splitlines()[0]})"
    from mini_letta.memory.edits import Snapshot, restore_snapshot

    ours = {p: journal.before[p] for p in paths if current[p] != journal.before[p]}
    mine = {p: data for p, data in ours.items() if _written_by_edit(current[p], journal, p)}
    restore_snapshot(memory_dir, Snapshot(mine))
    repo.run("--literal-pathspecs", "reset", "-q", "--", *paths, check=False)
    left = sorted(set(ours) - set(mine))
    kept = f"; {', '.join(left)} changed since and kept as they are" if left else ""
    return f"rolled back the interrupted edit of {names}{kept}"


def _written_by_edit(data: bytes | None, journal: EditJournal, path: str) -> bool:
    """Whether `path` holds what the edit wrote (whole, or a file still absent/being made)."""
    return digest(data) == journal.after[path] or data is None


def _current(memory_dir: Path, rel: str) -> bytes | None:
    target = memory_dir / rel
    if target.is_symlink() or not target.is_file():
        return None
    return target.read_bytes()
