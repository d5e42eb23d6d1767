"""Where two commits of memory stand, read from git's loose objects when that is plain.

A sync asks git two things before it integrates: is the remote's branch a commit (`rev-parse
^{commit}`), and how many commits each side has that the other has not (`rev-list --count`).
After an ordinary edit or fetch the answer is a short chain of commits git has just written as
loose objects (zlib-compressed `<kind> <size>\\0<body>` files, git's documented format), so it
is read here instead; anything else (a packed object, a merge on the way, history that replace
refs, grafts or a shallow clone may change) returns None and the caller asks git as before.
"""

from __future__ import annotations

from pathlib import Path

from mini_letta.memory.gitfiles import SHA_RE, read_loose_object

MAX_CHAIN = 64  # commits walked before giving the question to git
_MAX_COMMIT_BYTES = 1 << 20  # a larger "commit" is not read here


def loose_kind(common: Path, sha: str) -> bytes | None:
    """The kind (`commit`, `tree`, `blob`, `tag`) of a loose object, from its header alone;
    None when it is not a readable loose object."""
    found = _loose(common, sha, whole=False)
    return None if found is None else found[0]


def chain_length(common: Path, tip: str, base: str) -> int | None:
    """How many commits lead from `tip` back to `base` (0 when they are one): each a loose
    commit with exactly one parent, at most `MAX_CHAIN`. Then `base` is an ancestor of `tip`
    and those commits are all `tip` has that `base` has not (what `rev-list --count` counts).
    None when the walk meets anything else, or the history may not be the objects' own."""
    if not _plain_history(common):
        return None
    sha = tip
    for walked in range(MAX_CHAIN + 1):
        if sha == base:
            return walked
        parents = _parents(common, sha)
        if parents is None or len(parents) != 1:
            return None
        sha = parents[0]
    return None


def _parents(common: Path, sha: str) -> list[str] | None:
    """A loose commit's parents, as git reads them: the `parent` lines right after `tree`."""
    found = _loose(common, sha, whole=True)
    if found is None or found[0] != b"commit":
        return None
    lines = found[1].split(b"\n", MAX_CHAIN + 2)
    if not lines[0].startswith(b"tree "):
        return None
    parents = []
    for line in lines[1:]:
        if not line.startswith(b"parent "):
            break
        parent = line[7:].decode("ascii", "replace")
        if not SHA_RE.fullmatch(parent):
            return None
        parents.append(parent)
    return parents


def _loose(common: Path, sha: str, *, whole: bool) -> tuple[bytes, bytes] | None:
    """(kind, body) of the loose object `sha` (the body only when `whole`), at most
    `_MAX_COMMIT_BYTES` on disk; None when there is no such file or it does not read as one."""
    return read_loose_object(common, sha, header_only=not whole, max_bytes=_MAX_COMMIT_BYTES)


def _plain_history(common: Path) -> bool:
    """Whether git sees history as the commit objects say: no replace refs, no grafts, not a
    shallow clone (each can give a commit other parents than its object names)."""
    if (common / "info" / "grafts").exists() or (common / "shallow").exists():
        return False
    replace = common / "refs" / "replace"
    try:
        if replace.exists() and any(replace.iterdir()):
            return False
        packed = (common / "packed-refs").read_bytes()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return b" refs/replace/" not in packed
