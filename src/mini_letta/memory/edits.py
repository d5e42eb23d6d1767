"""Memory edit operations on a working tree, validated first and written all-or-nothing.

`plan_memory_edit` reads and checks everything (paths confined to the root, frontmatter valid
after the edit, read_only files refused, secrets refused, a unique str_replace match) and
returns the new bytes without touching the disk; `write_memory_plan` writes them atomically and
restores every touched file if any write fails. Nothing here commits: the memory tool commits
each edit, the reflection agent commits once at the end of its run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from mini_letta.errors import (
    FrontmatterError,
    MemfsError,
    MemoryEditError,
    SecretDetectedError,
    StorageError,
)
from mini_letta.home import SKILLS_DIR_NAME as SKILLS
from mini_letta.memory.files import (
    MAX_FILE_CHARS,
    memory_file_paths,
    read_memory_bytes,
    read_memory_text,
)
from mini_letta.memory.frontmatter import (
    MemoryFile,
    decode_memory_bytes,
    normalize_text,
    parse_memory_file,
    render_memory_file,
)
from mini_letta.memory.layout import DEFAULT_HUMAN, skill_of_bundled_file
from mini_letta.memory.listing import read_description
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.secrets import find_secret, iter_secrets, secret_values
from mini_letta.storage.atomic import save_bytes
from mini_letta.storage.fields import FieldError, require_str
from mini_letta.structs import Struct, field

COMMANDS = ("create", "str_replace", "insert", "delete", "rename", "update_description")
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "create": ("path", "description", "content"),
    "str_replace": ("path", "old_str", "new_str"),
    "insert": ("path", "content", "insert_line"),
    "delete": ("path",),
    "rename": ("path", "new_path"),
    "update_description": ("path", "description"),
}
_IGNORED = ("command", "reason")
_ALIASES = {"body": "content"}
_PLACEHOLDER = DEFAULT_HUMAN.strip()


class Snapshot(Struct, frozen=True):
    """What the touched files held before an edit (None: absent), to put them back."""

    files: Mapping[str, bytes | None] = field(default_factory=dict)
    new_dirs: tuple[str, ...] = ()


class MemoryEditPlan(Struct, frozen=True):
    command: str
    writes: Mapping[str, bytes]
    deletes: tuple[str, ...]
    message: str

    @property
    def touched(self) -> tuple[str, ...]:
        return tuple(sorted({*self.writes, *self.deletes}))


class EditOutcome(Struct, frozen=True):
    touched: tuple[str, ...]
    message: str
    snapshot: Snapshot = field(default_factory=Snapshot)


def apply_memory_edit(root: Path, command: str, args: Mapping[str, Any]) -> EditOutcome:
    """Validate and write one edit (see ARGUMENTS); raises MemfsError kinds, writing nothing."""
    plan = plan_memory_edit(root, command, args)
    return write_memory_plan(root, plan)


def plan_memory_edit(root: Path, command: str, args: Mapping[str, Any]) -> MemoryEditPlan:
    """Check an edit and compute the new file contents; reads only."""
    if command not in ARGUMENTS:
        raise MemoryEditError(
            f"unknown memory command {command!r} (allowed: {', '.join(COMMANDS)})"
        )
    if not Path(root).is_dir():
        raise MemoryEditError(f"the memory folder {root} does not exist")
    values = _check_arguments(command, args)
    planner = _PLANNERS[command]
    plan = planner(_Editor(Path(root), command), values)
    if not plan.deletes and all(
        _current_bytes(Path(root), path) == data for path, data in plan.writes.items()
    ):
        raise MemoryEditError(
            f"memory {command} made no change: the result is what {plan.touched[0]} already holds"
        )
    return plan


def write_memory_plan(root: Path, plan: MemoryEditPlan) -> EditOutcome:
    """Write a plan's files atomically; on any failure every touched file is put back."""
    root = Path(root)
    before = {path: _current_bytes(root, path) for path in plan.touched}
    new_dirs = _missing_dirs(root, plan.writes)
    snapshot = Snapshot(before, new_dirs)
    try:
        for path, data in plan.writes.items():
            save_bytes(root / path, data)
        for path in plan.deletes:
            (root / path).unlink()
            _prune_empty_dirs(root, PurePosixPath(path).parent)
    except BaseException:
        restore_snapshot(root, snapshot)
        raise
    return EditOutcome(plan.touched, plan.message, snapshot)


def restore_snapshot(root: Path, snapshot: Snapshot) -> None:
    """Put the files of a snapshot back exactly (bytes, presence) and drop folders it made.

    Every file is attempted even if one fails; the first failure is raised afterwards.
    """
    root = Path(root)
    failure: BaseException | None = None
    for path, data in snapshot.files.items():
        target = root / path
        try:
            if data is None:
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    target.unlink()
            elif _current_bytes(root, path) != data:
                save_bytes(target, data)
        except (OSError, MemfsError, StorageError) as exc:
            failure = failure or exc
    for folder in sorted(snapshot.new_dirs, key=len, reverse=True):
        with contextlib.suppress(OSError):
            (root / folder).rmdir()
    if failure is not None:
        raise failure


def read_memory_file(root: Path, path: str) -> str:
    """The text of one memory file in the working tree."""
    rel = resolve_memory_path(Path(root), path)
    try:
        return read_memory_text(Path(root), rel)
    except FileNotFoundError:
        raise MemoryEditError(
            f"{rel} does not exist in memory (list memory to see the files)"
        ) from None


def list_memory_tree(root: Path) -> list[tuple[str, str]]:
    """(path, description) for every `.md` file in the working tree, sorted by path; only
    each file's frontmatter is read (plain strings, no Path per file: 5,000 files list fast)."""
    top = os.fspath(root)
    found: list[tuple[str, str]] = []
    for rel in memory_file_paths(root):
        skill = skill_of_bundled_file(rel)
        if skill is not None:
            found.append((rel, f"(a file of the skill {skill})"))
            continue
        try:
            found.append((rel, read_description(os.path.join(top, rel), rel)))
        except OSError:
            continue  # gone since the walk listed it
    return sorted(found)


class _Editor:
    """Reads the current state for one planned edit; every read goes through its checks."""

    def __init__(self, root: Path, command: str) -> None:
        self.root = root
        self.command = command

    def path(self, values: Mapping[str, Any], name: str = "path") -> str:
        rel = resolve_memory_path(self.root, values.get(name), name)
        secret = find_secret(rel)
        if secret:
            raise SecretDetectedError(secret, f"the {name}")
        return rel

    def error(self, detail: str) -> MemoryEditError:
        return MemoryEditError(f"memory {self.command}: {detail}")

    def must_be_absent(self, rel: str) -> None:
        target = self.root / rel
        if os.path.lexists(target):
            raise self.error(f"{rel} already exists; edit it, or choose another path")
        for parent in PurePosixPath(rel).parents:
            folder = self.root / parent
            if os.path.lexists(folder) and not folder.is_dir():
                raise self.error(f"{parent} is a file, so {rel} cannot be created under it")

    def load(self, rel: str, *, for_delete: bool = False) -> tuple[bytes, MemoryFile | None]:
        target = self.root / rel
        if target.is_dir():
            raise self.error(f"{rel} is a folder; name a file inside it")
        if not target.is_file():
            raise self.error(f"{rel} does not exist (list memory to see the files)")
        # a file of any size may be deleted (resolve_memory_path has refused a link)
        raw = target.read_bytes() if for_delete else read_memory_bytes(self.root, rel)
        try:
            parsed = parse_memory_file(decode_memory_bytes(raw, rel), rel)
        except FrontmatterError as exc:
            if for_delete:
                return raw, None
            raise self.error(
                f"{exc}; the tool cannot edit a file whose frontmatter is broken (the user can "
                f"fix it with `mini-letta memory edit {rel}`)"
            ) from exc
        if parsed.read_only:
            raise self.error(f"{rel} is read_only and cannot be changed by the agent")
        return raw, parsed

    def render(self, rel: str, memory_file: MemoryFile, old: bytes | None) -> bytes:
        text = render_memory_file(memory_file)
        if len(text) > MAX_FILE_CHARS:
            raise self.error(
                f"{rel} would be {len(text)} characters (limit {MAX_FILE_CHARS}); split it up"
            )
        parse_memory_file(text, rel)  # the one validator; a bug here must not reach disk
        old_text = old.decode("utf-8", "replace") if old is not None else ""
        known = secret_values(old_text)
        for found in iter_secrets(text):
            if text[found.start : found.end] not in known:
                raise SecretDetectedError(found.kind, f"the new content of {rel}")
        return text.encode("utf-8")


def _plan_create(ed: _Editor, values: Mapping[str, Any]) -> MemoryEditPlan:
    rel = ed.path(values)
    ed.must_be_absent(rel)
    description = _description(ed, values)
    body = _body_text(_string(ed, values, "content", default=""))
    parts = rel.split("/")
    # A skill (agentskills.io) names itself: its `name` is its folder's.
    is_skill = len(parts) == 3 and parts[0] == SKILLS and parts[2] == "SKILL.md"
    extra = {"name": parts[1]} if is_skill else {}
    data = ed.render(rel, MemoryFile(description, body, extra=extra), None)
    return MemoryEditPlan("create", {rel: data}, (), f"created {rel}")


def _plan_str_replace(ed: _Editor, values: Mapping[str, Any]) -> MemoryEditPlan:
    rel = ed.path(values)
    old_str = normalize_text(_string(ed, values, "old_str"))
    new_str = normalize_text(_string(ed, values, "new_str", allow_empty=True))
    raw, parsed = ed.load(rel)
    assert parsed is not None
    count = parsed.body.count(old_str)
    if count == 0:
        raise ed.error(
            f"old_str was not found in the body of {rel}; copy the exact text (whitespace and "
            "line breaks count)"
        )
    if count > 1:
        raise ed.error(
            f"old_str occurs {count} times in {rel}; include more surrounding text so it "
            "matches exactly once"
        )
    body = _drop_placeholder(parsed.body.replace(old_str, new_str, 1))
    data = ed.render(rel, _with_body(parsed, body), raw)
    return MemoryEditPlan("str_replace", {rel: data}, (), f"replaced text in {rel}")


def _plan_insert(ed: _Editor, values: Mapping[str, Any]) -> MemoryEditPlan:
    rel = ed.path(values)
    content = normalize_text(_string(ed, values, "content"))
    raw, parsed = ed.load(rel)
    assert parsed is not None
    lines = parsed.body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    where = values.get("insert_line")
    if where is None:
        where = len(lines)
    if not isinstance(where, int) or isinstance(where, bool):
        raise ed.error("'insert_line' must be an integer (0 = top of the body; omit to append)")
    if not 0 <= where <= len(lines):
        raise ed.error(
            f"insert_line {where} is outside the body of {rel}, which has {len(lines)} lines "
            f"(use 0 to {len(lines)})"
        )
    new_lines = content.removesuffix("\n").split("\n")
    body = _drop_placeholder("\n".join(lines[:where] + new_lines + lines[where:]) + "\n")
    data = ed.render(rel, _with_body(parsed, body), raw)
    return MemoryEditPlan("insert", {rel: data}, (), f"inserted text into {rel} at line {where}")


def _plan_delete(ed: _Editor, values: Mapping[str, Any]) -> MemoryEditPlan:
    rel = ed.path(values)
    ed.load(rel, for_delete=True)
    return MemoryEditPlan("delete", {}, (rel,), f"deleted {rel}")


def _plan_rename(ed: _Editor, values: Mapping[str, Any]) -> MemoryEditPlan:
    rel = ed.path(values)
    new_rel = ed.path(values, "new_path")
    if new_rel == rel:
        raise ed.error("new_path is the same as path")
    raw, _ = ed.load(rel)
    if os.path.lexists(ed.root / new_rel):
        raise ed.error(f"the destination {new_rel} already exists; choose another new_path")
    ed.must_be_absent(new_rel)
    return MemoryEditPlan("rename", {new_rel: raw}, (rel,), f"renamed {rel} to {new_rel}")


def _plan_update_description(ed: _Editor, values: Mapping[str, Any]) -> MemoryEditPlan:
    rel = ed.path(values)
    description = _description(ed, values)
    raw, parsed = ed.load(rel)
    assert parsed is not None
    updated = MemoryFile(description, parsed.body, parsed.read_only, dict(parsed.extra))
    data = ed.render(rel, updated, raw)
    return MemoryEditPlan(
        "update_description", {rel: data}, (), f"updated the description of {rel}"
    )


_PLANNERS = {
    "create": _plan_create,
    "str_replace": _plan_str_replace,
    "insert": _plan_insert,
    "delete": _plan_delete,
    "rename": _plan_rename,
    "update_description": _plan_update_description,
}


def _check_arguments(command: str, args: Mapping[str, Any]) -> dict[str, Any]:
    allowed = ARGUMENTS[command]
    values: dict[str, Any] = {}
    for key, value in args.items():
        name = _ALIASES.get(key, key)
        if name in _IGNORED:
            continue
        if name not in allowed:
            raise MemoryEditError(
                f"memory {command}: unknown argument {key!r} "
                f"(allowed: {', '.join((*allowed, 'reason'))})"
            )
        values[name] = value
    return values


def _string(
    ed: _Editor,
    values: Mapping[str, Any],
    key: str,
    *,
    default: str | None = None,
    allow_empty: bool = False,
) -> str:
    """`values[key]` (else `default`) by the one field check, as this command's error."""
    non_empty = not allow_empty and default is None
    try:
        return require_str({key: values.get(key, default)}, key, non_empty=non_empty)
    except FieldError as exc:
        raise ed.error(str(exc)) from None


def _description(ed: _Editor, values: Mapping[str, Any]) -> str:
    description = " ".join(_string(ed, values, "description").split())
    if not description:
        raise ed.error("'description' must be one non-empty line saying what the file holds")
    return description


def _body_text(content: str) -> str:
    text = normalize_text(content)
    return text if not text or text.endswith("\n") else text + "\n"


def _drop_placeholder(body: str) -> str:
    """A new memory's placeholder line goes once the file holds anything else.

    Real models append beside it rather than replace it, and a file that says both "nothing
    yet" and a fact misleads the next reader; the memory layer tidies it, not the model.
    """
    lines = body.split("\n")
    kept = [line for line in lines if line.strip() != _PLACEHOLDER]
    if len(kept) == len(lines) or not any(line.strip() for line in kept):
        return body
    return "\n".join(kept)


def _with_body(parsed: MemoryFile, body: str) -> MemoryFile:
    return MemoryFile(parsed.description, body, parsed.read_only, dict(parsed.extra))


def _current_bytes(root: Path, rel: str) -> bytes | None:
    try:
        return (root / rel).read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _missing_dirs(root: Path, writes: Mapping[str, bytes]) -> tuple[str, ...]:
    missing: set[str] = set()
    for rel in writes:
        for parent in PurePosixPath(rel).parents:
            if str(parent) != "." and not (root / parent).exists():
                missing.add(str(parent))
    return tuple(sorted(missing))


def _prune_empty_dirs(root: Path, folder: PurePosixPath) -> None:
    """Git does not track folders; drop the ones a delete or rename leaves empty."""
    while str(folder) != ".":
        try:
            (root / folder).rmdir()
        except OSError:
            return
        folder = folder.parent
