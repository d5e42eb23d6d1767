"""The `memory` tool: the agent reads and edits its own memory files, one commit per change.

A change is planned and validated first (memory/edits.py), refused if a path it touches has
uncommitted changes, if it adds a line its file already has (the model is told it is already
known), or if it grows any memory file past its per-file cap (the memory gate's own budget,
passed in as `extra["memory_file_cap"]`, so a file the chat fills is one reflection can still
consolidate rather than a wall), then written and committed with the call's `reason` as the
message, all under the repo's lock (`agents/<id>/memory.lock`) so two processes take turns. If
the commit fails (a held ref lock, a full disk), the files are put back: memory is as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta.llm.base import ToolSpec
from mini_letta.storage.fields import require_str
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult

if TYPE_CHECKING:
    from mini_letta.memory.edits import MemoryEditPlan

_COMMANDS = ["view", "create", "str_replace", "insert", "delete", "rename", "update_description"]

DESCRIPTION = (
    "Read or change your memory files. Changes are committed with `reason`. view: a file, or "
    "the file list without path."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "enum": _COMMANDS},
        "path": {"type": "string"},
        "reason": {"type": "string"},
        "description": {"type": "string"},
        "content": {"type": "string", "description": "create: body; insert: text"},
        "old_str": {"type": "string", "description": "must match once"},
        "new_str": {"type": "string"},
        "insert_line": {"type": "integer", "description": "after body line N; 0 top; omit: end"},
        "new_path": {"type": "string"},
    },
    "required": ["command", "reason"],
}


class MemoryTool:
    kind: ToolKind = "memory"

    def __init__(self) -> None:
        self.spec = ToolSpec("memory", DESCRIPTION, SCHEMA)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if ctx.memory_dir is None:
            raise ToolInputError("this agent has no memory folder")
        command = require_str(args, "command", non_empty=True)
        if command == "view":
            return _view(ctx.memory_dir, args, ctx.output_cap)
        reason = require_str(args, "reason", non_empty=True).strip()
        if not reason:
            raise ToolInputError("'reason' must say why (it becomes the commit message)")
        return ToolResult(
            apply_and_commit(ctx.memory_dir, command, args, reason, file_cap=ctx.memory_file_cap)
        )


def apply_and_commit(
    memory_dir: Path,
    command: str,
    args: dict[str, Any],
    reason: str,
    *,
    file_cap: Callable[[], int] | None = None,
) -> str:
    """Validate, write and commit one edit under the repo lock; returns the result line.
    `file_cap` gives the per-file token cap of every memory file (None: no cap)."""
    from mini_letta.errors import MemoryEditError
    from mini_letta.memory.edits import plan_memory_edit
    from mini_letta.memory.gitindex import unchanged_by_files
    from mini_letta.memory.history import write_and_commit
    from mini_letta.memory.repo import GitRepo, lock_memory
    from mini_letta.memory.secrets import refuse_secret

    refuse_secret(reason, "the reason")
    repo = GitRepo(memory_dir)
    if not repo.exists():
        raise MemoryEditError(f"the memory folder {memory_dir} is not a git repository")
    with lock_memory(memory_dir):
        _refuse_unfinished_git(memory_dir)
        plan = plan_memory_edit(memory_dir, command, args)
        refuse_known_or_oversized(memory_dir, plan, file_cap)
        # git's files answer for a file the last commit left as it is; else `git status` does
        dirty = (
            [] if unchanged_by_files(memory_dir, plan.touched) else repo.changed_paths(plan.touched)
        )
        if dirty:
            raise MemoryEditError(
                f"memory {command}: {', '.join(dirty)} has uncommitted changes; ask the user to "
                "commit or discard them (`mini-letta memory status`)"
            )
        outcome, sha = write_and_commit(memory_dir, plan, reason)
    if sha is None:  # the plan refused no-op edits, so only an outside change gets here
        return f"{outcome.message}; nothing to commit"
    return f"{outcome.message} (committed {sha[:7]})"


def refuse_known_or_oversized(
    memory_dir: Path, plan: MemoryEditPlan, file_cap: Callable[[], int] | None
) -> None:
    """Raise MemoryEditError for an edit that adds a line its file already has, or that grows
    a memory file (in `system/` or not, as the gate counts) past `file_cap()` tokens (a change
    that shrinks one always passes)."""
    from mini_letta.errors import MemoryEditError

    for path, data in sorted(plan.writes.items()):
        old_text = _text_of(memory_dir, path)
        new_text = data.decode("utf-8", errors="replace")
        known = _repeated_line(old_text, new_text)
        if known is not None:
            raise MemoryEditError(
                f"{path} already has the line {known!r}: it is already known, nothing to add"
            )
        if file_cap is None:
            continue
        from mini_letta.llm.tokens import estimate_tokens

        cap, after = file_cap(), estimate_tokens(new_text)
        if after > cap and after > estimate_tokens(old_text):
            raise MemoryEditError(
                f"{path} would grow to ~{after} tokens, past its cap of {cap}: consolidate it "
                "first (merge repeated lines, replace what changed, move detail into a file "
                "outside system/ and link it), or keep this in a file outside system/"
            )


def _text_of(memory_dir: Path, path: str) -> str:
    from mini_letta.errors import FrontmatterError
    from mini_letta.memory.files import read_memory_bytes

    try:
        return read_memory_bytes(memory_dir, path).decode("utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, FrontmatterError):
        return ""  # absent, or not a plain file: the plan names that problem itself


def _repeated_line(old: str, new: str) -> str | None:
    """A non-blank line the edit adds (one more copy than before) that the file already had."""
    before = Counter(line.strip() for line in old.splitlines())
    after = Counter(line.strip() for line in new.splitlines())
    for line, count in after.items():
        if line and line != "---" and before[line] and count > before[line]:
            return line
    return None


def _refuse_unfinished_git(memory_dir: Path) -> None:
    from mini_letta.errors import MemoryEditError

    git_dir = memory_dir / ".git"
    for marker in ("MERGE_HEAD", "REVERT_HEAD", "CHERRY_PICK_HEAD", "rebase-merge", "rebase-apply"):
        if (git_dir / marker).exists():
            raise MemoryEditError(
                "memory has an unfinished git operation (merge, revert or rebase); ask the user "
                "to finish or abort it"
            )


def _view(memory_dir: Path, args: dict[str, Any], cap: int) -> ToolResult:
    from mini_letta.memory.edits import list_memory_tree, read_memory_file

    path = args.get("path")
    if path is None or path == "":
        lines = [f"{rel} — {description}" for rel, description in list_memory_tree(memory_dir)]
        text = "\n".join(lines) or "(memory is empty)"
    else:
        text = read_memory_file(memory_dir, path)
    if len(text) > cap:
        text = text[:cap] + f"\n… (truncated at {cap} characters)"
    return ToolResult(text)
