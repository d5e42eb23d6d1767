"""The reflection agent's tools, confined to its worktree (`ToolContext.memory_dir`).

list, read, the memory edit operations and commit. Every path goes through memfs's one
resolver and validator (`memory.edits`), which refuses `..`, absolute paths, hidden names and
symlinks out of the root; edits are not committed one by one: `memory_commit` makes the run's
single commit of everything changed, with the run's provenance trailers. An edit may cite
`evidence` (message ids from the transcript); the citations are collected for the gate and the
run record. Nothing here can reach the parent memory checkout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mini_letta.errors import MemoryEditError, MiniLettaError
from mini_letta.llm.base import ToolSpec
from mini_letta.memory.edits import COMMANDS, apply_memory_edit, list_memory_tree, read_memory_file
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.repo import GitRepo
from mini_letta.memory.secrets import refuse_secret
from mini_letta.reflection.gate.check import Citation
from mini_letta.reflection.run.worktree import BranchCommit, WorktreeLog, tracked_changes
from mini_letta.storage.fields import require_str
from mini_letta.structs import Struct, field
from mini_letta.tools.base import Tool, ToolContext, ToolInputError, ToolKind, ToolResult
from mini_letta.tools.recall import ConversationSearchTool, MemorySearchTool

_STR = {"type": "string"}


class OutsideMemoryError(MemoryEditError):
    """An edit named a path that is not a memory path (`..`, absolute, hidden, not .md)."""


class RunProvenance(Struct):
    """What one run's tools share: the commit trailers, and the citations its edits made."""

    trailers: tuple[str, ...] = ()
    citations: list[Citation] = field(default_factory=list)
    run_id: str = ""  # stamped into the metadata of a skill the run writes
    worktree: WorktreeLog = field(default_factory=WorktreeLog)  # what the tools did there


def evidence_ids(args: dict[str, Any]) -> tuple[str, ...]:
    value = args.get("evidence")
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ToolInputError("'evidence' must be a list of message ids from the transcript")
    return tuple(v.strip() for v in value)


def _root(ctx: ToolContext) -> Path:
    if ctx.memory_dir is None:
        raise ToolInputError("no memory worktree is attached to this run")
    return ctx.memory_dir


class MemoryListTool:
    spec = ToolSpec(
        "memory_list",
        "List every memory file with its description.",
        {"type": "object", "properties": {}},
    )
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        entries = list_memory_tree(_root(ctx))
        if not entries:
            return ToolResult("(memory is empty)")
        return ToolResult("\n".join(f"{path} — {description}" for path, description in entries))


class MemoryReadTool:
    spec = ToolSpec(
        "memory_read",
        "Read one memory file (frontmatter and body), e.g. system/human.md.",
        {"type": "object", "properties": {"path": _STR}, "required": ["path"]},
    )
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(read_memory_file(_root(ctx), require_str(args, "path", non_empty=True)))


class MemoryEditTool:
    spec = ToolSpec(
        "memory",
        "Edit memory: create (path, description, content), str_replace (path, old_str, "
        "new_str), insert (path, content, insert_line; omit it to append), delete (path), "
        "rename (path, new_path), update_description (path, description). To change or "
        "delete what memory already says, cite `evidence`: the ids of the transcript messages "
        "that make the old text stale. Edits are not committed until memory_commit.",
        {
            "type": "object",
            "properties": {
                "command": {"type": "string", "enum": list(COMMANDS)},
                "path": _STR,
                "description": _STR,
                "content": _STR,
                "old_str": _STR,
                "new_str": _STR,
                "insert_line": {"type": "integer"},
                "new_path": _STR,
                "evidence": {"type": "array", "items": _STR},
            },
            "required": ["command", "path"],
        },
    )
    kind: ToolKind = "memory"

    def __init__(self, provenance: RunProvenance | None = None) -> None:
        self.provenance = provenance or RunProvenance()

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.provenance.worktree.edited = True  # from here on, only git can say it is clean
        command = require_str(args, "command", non_empty=True)
        evidence = evidence_ids(args)
        rest = {key: value for key, value in args.items() if key not in ("command", "evidence")}
        path = str(args.get("path", "")).strip()
        for key in ("path", "new_path"):
            if key == "path" or args.get(key) is not None:
                rel = _check_path(_root(ctx), args.get(key), key)
                self.provenance.worktree.note_before(_root(ctx), rel)  # the gate's diff
        before = _current_text(_root(ctx), path) if command in ("delete", "rename") else ""
        outcome = apply_memory_edit(_root(ctx), command, rest)
        _stamp_skills(_root(ctx), args, self.provenance.run_id)
        if evidence:
            self.provenance.citations += _citations(command, args, evidence, before)
        return ToolResult(outcome.message)


def _stamp_skills(root: Path, args: dict[str, Any], run_id: str) -> None:
    """A skill the run wrote carries its name and, in `metadata`, this run's id."""
    from mini_letta.skills.learned import is_skill_path, stamp_learned_skill

    for key in ("path", "new_path"):
        rel = str(args.get(key) or "").strip()
        if run_id and is_skill_path(rel):
            stamp_learned_skill(root, rel, run_id)


def _check_path(root: Path, path: object, name: str) -> str:
    try:
        return resolve_memory_path(root, path, name)
    except MemoryEditError as exc:
        raise OutsideMemoryError(str(exc)) from exc


def _lines(text: object) -> tuple[str, ...]:
    return tuple(line.strip() for line in str(text or "").split("\n") if line.strip())


def _current_text(root: Path, path: str) -> str:
    try:
        return read_memory_file(root, path)
    except MiniLettaError:
        return ""  # the edit itself will say what is wrong with the path


def _citations(
    command: str, args: dict[str, Any], evidence: tuple[str, ...], before: str
) -> list[Citation]:
    """What one cited edit wrote and removed, per path: the gate matches lines against both,
    so an uncited change beside a cited one in the same file is still uncited."""
    path = str(args.get("path", "")).strip()
    if command == "rename":
        moved = _lines(before)
        new_path = str(args.get("new_path") or "").strip()
        return [Citation(path, evidence, (), moved), Citation(new_path, evidence, moved, ())]
    if command == "delete":
        return [Citation(path, evidence, (), _lines(before))]
    written = _lines(args.get("new_str") or args.get("content"))
    removed = _lines(args.get("old_str")) if command == "str_replace" else ()
    return [Citation(path, evidence, written, removed)]


class MemoryCommitTool:
    spec = ToolSpec(
        "memory_commit",
        "Commit every memory change made so far as one commit. Call it once, when done.",
        {"type": "object", "properties": {"message": _STR}, "required": ["message"]},
    )
    kind: ToolKind = "memory"

    def __init__(self, provenance: RunProvenance | None = None) -> None:
        self.provenance = provenance or RunProvenance()

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        message = " ".join(require_str(args, "message", non_empty=True).split("\n", 1)[0].split())
        if not message:
            raise ToolInputError("'message' must say what changed")
        refuse_secret(message, "the commit message")  # before looking at the tree
        root = _root(ctx)
        repo = GitRepo(root)
        log = self.provenance.worktree
        trailers = self.provenance.trailers
        before = repo.head_sha_or_none()
        full = message + ("\n\n" + "\n".join(trailers) if trailers else "")
        tracked = tracked_changes(root, log)  # files git tracks: one process, no `git add`
        if tracked:
            sha = repo.commit_paths(tracked, full, tracked=True)
            done = None if sha is None else (sha, tracked)
        else:
            done = repo.commit_all(full)
        log.edited = False  # committed or not, nothing is left uncommitted
        if done is None:
            return ToolResult("Nothing to commit: memory has no changes.")
        sha, changed = done
        log.note_commit(root, BranchCommit(before, sha, message, tuple(changed)))  # one line
        return ToolResult(f"Committed {sha[:12]}: {len(changed)} file(s) ({', '.join(changed)}).")


def reflection_tools(provenance: RunProvenance | None = None) -> tuple[Tool, ...]:
    shared = provenance or RunProvenance()
    return (
        MemoryListTool(),
        MemoryReadTool(),
        MemoryEditTool(shared),
        MemoryCommitTool(shared),
        ConversationSearchTool(),
        MemorySearchTool(),
    )
