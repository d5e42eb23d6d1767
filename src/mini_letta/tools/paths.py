"""Where the file tools may go: the working directory and the agent's memory, nothing else.

A path is resolved against the working directory with symlinks followed, and only then checked,
so `../x`, an absolute path or a symlink pointing outside are all refused the same way. Memory is
readable here but changed only through the `memory` tool, which validates and commits.
"""

from __future__ import annotations

from pathlib import Path

from mini_letta.tools.base import ToolContext, ToolInputError


class PathRefusedError(ToolInputError):
    """A path outside what the tools may touch; shown to the model."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_tool_path(raw: str, ctx: ToolContext, *, for_edit: bool = False) -> Path:
    """The real path for `raw`; refuses anything outside the working directory and memory."""
    if not raw.strip():
        raise ToolInputError("'path' must not be empty")
    if "\x00" in raw:
        raise ToolInputError("'path' must not contain NUL characters")
    cwd = ctx.cwd.resolve()
    candidate = Path(raw).expanduser()
    resolved = (candidate if candidate.is_absolute() else cwd / candidate).resolve()
    memory = ctx.memory_dir.resolve() if ctx.memory_dir is not None else None
    if memory is not None and _inside(resolved, memory):
        if for_edit:
            raise PathRefusedError(
                f"{raw} is in the agent's memory; change memory with the memory tool, "
                "which validates and commits"
            )
        return resolved
    if _inside(resolved, cwd):
        return resolved
    raise PathRefusedError(
        f"{raw} resolves to {resolved}, outside the working directory ({cwd}) and the "
        "agent's memory; only files there can be used"
    )


def display_path(path: Path, ctx: ToolContext) -> str:
    """A path as the model should see it: relative to the working directory when inside it."""
    cwd = ctx.cwd.resolve()
    try:
        return str(path.relative_to(cwd)) or "."
    except ValueError:
        return str(path)
