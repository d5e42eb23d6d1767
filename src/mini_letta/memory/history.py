"""Memory history for people: status, log, diff, undo, validate and hand edits.

The core of `mini-letta memory ...`: each function takes the memory folder and returns data or
text; the CLI only renders. Writes (undo, hand edits) hold the same per-repo lock as the memory
tool and leave memory exactly as before when they are refused or fail.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mini_letta.errors import FrontmatterError, MemfsError, NotFoundError, SecretDetectedError
from mini_letta.memory.edits import (
    EditOutcome,
    MemoryEditPlan,
    restore_snapshot,
    write_memory_plan,
)
from mini_letta.memory.files import memory_file_paths, read_memory_text
from mini_letta.memory.frontmatter import parse_memory_file
from mini_letta.memory.layout import skill_of_bundled_file
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.memory.secrets import find_secret, iter_secrets, refuse_secret, secret_values
from mini_letta.structs import Struct

_FIELD = "\x1f"
_RECORD = "\x1e"


class LogEntry(Struct, frozen=True):
    sha: str
    date: str
    author: str
    subject: str


class MemoryStatus(Struct, frozen=True):
    path: str
    branch: str | None
    head: str | None
    changes: tuple[tuple[str, str], ...]  # (porcelain XY, path)

    @property
    def clean(self) -> bool:
        return not self.changes


class Problem(Struct, frozen=True):
    path: str
    problem: str


def load_status(memory_dir: Path) -> MemoryStatus:
    repo = _repo(memory_dir)
    return MemoryStatus(
        str(memory_dir), repo.current_branch(), repo.head_sha_or_none(),
        tuple(repo.status_entries()),
    )  # fmt: skip


def load_log(memory_dir: Path, limit: int) -> list[LogEntry]:
    """The newest `limit` commits, newest first."""
    repo = _repo(memory_dir)
    if repo.head_sha_or_none() is None:
        return []
    fmt = _FIELD.join(("%H", "%aI", "%an", "%s")) + _RECORD
    raw = repo.run("log", f"-n{limit}", f"--format={fmt}")
    entries = []
    for record in raw.split(_RECORD):
        fields = record.strip("\n").split(_FIELD)
        if len(fields) == 4:
            entries.append(LogEntry(*fields))
    return entries


def load_diff(memory_dir: Path, rev: str = "HEAD") -> str:
    """The working tree's changes since `rev` (default HEAD: what is not committed yet)."""
    repo = _repo(memory_dir)
    sha = repo.rev_parse(rev)
    diff = repo.run("diff", "--no-color", "--no-ext-diff", sha, "--")
    untracked = [path for code, path in repo.status_entries() if code == "??"]
    if untracked:
        diff += "".join(f"untracked: {path}\n" for path in untracked)
    return diff


def resolve_undo_rev(
    memory_dir: Path, ref: str | None, run_lookup: Callable[[str], str | None] | None = None
) -> str:
    """The commit `memory undo REF` reverts (default HEAD).

    `run_lookup` maps a reference that is not a git revision (a reflection run id) to the
    commit to revert, or None when it does not know it; the reflection layer supplies it.
    """
    repo = _repo(memory_dir)
    if ref and run_lookup is not None:
        found = run_lookup(ref)
        if found is not None:
            return repo.rev_parse(found)
    return repo.rev_parse(ref or "HEAD")


def undo_commit(memory_dir: Path, sha: str) -> str:
    """Revert one commit as a new commit; returns the new sha.

    A conflict changes nothing; neither does a revert that would bring a credential back (in a
    file, a path, or the subject it repeats): SecretDetectedError.
    """

    repo = _repo(memory_dir)
    with lock_memory(memory_dir):
        _require_clean(repo, "undo")
        parents = repo.run("rev-list", "--parents", "-n1", sha).split()[1:]
        if not parents:
            raise MemfsError(f"{sha[:7]} is the first memory commit; there is nothing before it")
        subject = repo.run("log", "-1", "--format=%s", sha).strip()
        message = f'Revert "{subject}"\n\nThis reverts commit {sha}.'
        refuse_secret(message, "the commit message")
        args = ["revert", "--no-commit"] + (["-m", "1"] if len(parents) > 1 else []) + [sha]
        code, said = repo.try_run(*args)
        if code != 0:
            conflicted = repo.run("diff", "--name-only", "--diff-filter=U").split()
            _abandon_revert(repo)
            if not conflicted:
                raise MemfsError(f"undoing {sha[:7]} did not work ({said}); nothing was changed")
            raise MemfsError(
                f"undoing {sha[:7]} conflicts with later memory changes in "
                f"{', '.join(conflicted)}; nothing was changed (edit the files by hand with "
                "`mini-letta memory edit PATH`)"
            )
        changed = repo.changed_paths()
        try:
            _refuse_restored_secrets(repo, changed)
            repo.run("revert", "--quit")  # keep the changes, commit them through the one gate
            repo.run("reset", "-q")  # unstaged, as commit_paths expects them
            new = repo.commit_paths(changed, message)
        except BaseException:
            _abandon_revert(repo, changed)
            raise
        if new is None:
            raise MemfsError(f"undoing {sha[:7]} changes nothing; it is already undone")
        return new


def _abandon_revert(repo: GitRepo, restored: list[str] | None = None) -> None:
    """Back to HEAD; memory was clean before, so an untracked `restored` file is the revert's."""
    repo.returncode("revert", "--abort")
    repo.returncode("reset", "-q", "--hard", "HEAD")
    if restored:
        repo.returncode("--literal-pathspecs", "clean", "-fdq", "--", *restored)


def _refuse_restored_secrets(repo: GitRepo, changed: list[str]) -> None:
    for rel in changed:
        refuse_secret(rel, "the restored path")
        target = repo.path / rel
        if not target.is_file():
            continue
        known = secret_values(repo.show_file("HEAD", rel) or "")
        text = target.read_bytes().decode("utf-8", "replace")
        for found in iter_secrets(text):
            if text[found.start : found.end] not in known:
                raise SecretDetectedError(found.kind, f"undoing this would restore {rel}, which")


def validate_memory(memory_dir: Path) -> tuple[int, list[Problem]]:
    """(files checked, problems) for the working tree: frontmatter, skill layout, secrets."""
    checked = 0
    problems: list[Problem] = []
    for rel in memory_file_paths(memory_dir):
        if skill_of_bundled_file(rel) is not None:
            continue
        checked += 1
        problems += _file_problems(memory_dir, rel)
    return checked, sorted(problems, key=lambda p: p.path)


def save_hand_edit(
    memory_dir: Path, path: str, edit: Callable[[str], str], message: str | None = None
) -> str | None:
    """Let a person edit one file (`edit` gets the text, returns the new text), then commit.

    The new text must be a valid memory file without new secrets; otherwise MemfsError and
    memory is untouched. Returns the new sha, or None when the text did not change.
    """

    rel = resolve_memory_path(memory_dir, path)
    refuse_secret(rel, "the path")
    refuse_secret(message or "", "the commit message")  # before the person spends time
    repo = _repo(memory_dir)
    target = memory_dir / rel
    _require_clean(repo, "edit", [rel])
    before = target.read_bytes() if target.exists() else None
    old_text = before.decode("utf-8", "replace") if before is not None else _TEMPLATE
    new_text = edit(old_text)  # outside the lock: a person may take minutes
    if new_text == old_text:
        return None
    parse_memory_file(new_text, rel)
    known = secret_values(old_text)
    for found in iter_secrets(new_text):
        if new_text[found.start : found.end] not in known:
            raise SecretDetectedError(found.kind, f"the edited {rel}")
    plan = MemoryEditPlan("edit", {rel: new_text.encode("utf-8")}, (), f"edited {rel}")
    with lock_memory(memory_dir):
        _require_clean(repo, "edit", [rel])
        now = target.read_bytes() if target.exists() else None
        if now != before:
            raise MemfsError(f"{rel} changed while it was being edited; nothing was saved")
        return write_and_commit(memory_dir, plan, message or f"Edit {rel} by hand")[1]


def write_and_commit(
    memory_dir: Path, plan: MemoryEditPlan, message: str
) -> tuple[EditOutcome, str | None]:
    """Write a checked plan and commit exactly its paths; a failed commit puts the files back.

    The caller holds the memory lock and has checked that the touched paths are clean, so a
    path that is there before the write is one git tracks: an edit or deletion of files that
    were all there commits in one git process (`commit_paths(tracked=True)`, which stages the
    usual way if git says otherwise, as for a file the repository ignores).
    """
    from mini_letta.memory.journal import begin_edit, end_edit

    before = {path: _file_bytes(memory_dir / path) for path in plan.touched}
    tracked = all(data is not None for data in before.values())
    begin_edit(memory_dir, message, before, plan.writes)  # settled by the next writer if we die
    try:
        outcome = write_memory_plan(memory_dir, plan)  # puts the files back itself on failure
        try:
            repo = GitRepo(memory_dir)
            sha = repo.commit_paths(outcome.touched, message, tracked=tracked)
        except BaseException:
            restore_snapshot(memory_dir, outcome.snapshot)
            raise
    finally:
        end_edit(memory_dir)
    return outcome, sha


def _file_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


_TEMPLATE = "---\ndescription: \n---\n"


def show_memory_file(memory_dir: Path, path: str, rev: str | None = None) -> str:
    """One file's text from the working tree, or as it was at `rev`."""
    rel = resolve_memory_path(memory_dir, path)
    if rev is None:
        target = memory_dir / rel
        if not target.is_file():
            raise NotFoundError(f"{rel} is not in memory (see `mini-letta memory tree`)")
        return target.read_bytes().decode("utf-8", "replace")
    repo = _repo(memory_dir)
    text = repo.show_file(repo.rev_parse(rev), rel)
    if text is None:
        raise NotFoundError(f"{rel} is not in memory at {rev}")
    return text


def _file_problems(memory_dir: Path, rel: str) -> list[Problem]:
    parts = rel.split("/")
    if parts[0] == "skills" and len(parts) == 2:
        return [Problem(rel, "skills are folders: use skills/<name>/SKILL.md")]
    try:
        text = read_memory_text(memory_dir, rel)
        parse_memory_file(text, rel)
    except FileNotFoundError:
        return []  # gone since the walk listed it
    except FrontmatterError as exc:
        return [Problem(rel, str(exc).removeprefix(f"{rel}: "))]
    kind = find_secret(text)
    if kind:
        return [Problem(rel, f"contains what looks like a secret ({kind})")]
    return []


def _repo(memory_dir: Path) -> GitRepo:
    repo = GitRepo(memory_dir)
    if not repo.exists():
        raise MemfsError(f"{memory_dir} is not a memory repository")
    return repo


def _require_clean(repo: GitRepo, action: str, paths: list[str] | None = None) -> None:
    changed = repo.changed_paths(paths or ())
    if changed:
        raise MemfsError(
            f"cannot {action}: memory has uncommitted changes ({', '.join(changed[:5])}); "
            "commit or discard them first (see `mini-letta memory status`)"
        )
