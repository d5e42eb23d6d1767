"""Helpers for memory tests: a byte-exact picture of a repo's working tree and git state."""

from __future__ import annotations

import subprocess
from pathlib import Path


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under root (outside .git) with its bytes, plus every folder as b'<dir>'."""
    found: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        found[rel] = b"<dir>" if path.is_dir() and not path.is_symlink() else path.read_bytes()
    return found


def git_state(root: Path) -> str:
    """HEAD's sha and every path whose index entry or file differs from it, with the mode and
    object of each side (`status --porcelain=v2 --branch`): the whole index and working tree
    as git sees them, in one process. Compare before and after: all must be unchanged."""
    args = ["status", "--porcelain=v2", "--branch", "--untracked-files=all"]
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def write_file(root: Path, rel: str, text: str) -> None:
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode("utf-8"))


def commit_all(root: Path, message: str = "test setup") -> None:
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            message,
        ],
        check=True,
    )


def block_commits(root: Path) -> None:
    """Make the next commit in `root` fail after staging, as a concurrent git writer would.

    Hooks never run for mini-letta, so a held branch ref lock stands in for a refusing hook.
    """
    (root / ".git" / "refs" / "heads" / "main.lock").write_text("")
