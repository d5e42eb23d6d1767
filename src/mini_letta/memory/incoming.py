"""What a sync may bring into memory: the checks the memory tool applies to its own edits.

A remote is written by other machines, other tools and possibly an attacker. Before memory moves
to a commit that came from it (a fast-forward, a merge or a first clone), every file the move
adds or changes must be a plain file (never a symbolic link, a submodule or anything else git can
store), sit in the memory layout, be UTF-8 text within the memory tool's size limit and hold no
credential the file did not already hold; the memory must stay within its file count, and the
incoming commits' messages hold no credential either. Any failure refuses the whole move, naming
each path and what is wrong (a credential by its kind, never its value).
"""

from __future__ import annotations

from collections.abc import Iterator

from mini_letta.errors import FrontmatterError, MemoryEditError
from mini_letta.memory.files import MAX_FILE_BYTES, MAX_FILE_CHARS, MAX_MEMORY_FILES
from mini_letta.memory.frontmatter import decode_memory_bytes
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.repo import GitRepo
from mini_letta.memory.secrets import iter_secrets, secret_values
from mini_letta.structs import Struct

_PLAIN = ("100644", "100755")
_ABSENT = "000000"  # the mode of the side of a change where the file is not
_KINDS = {"120000": "a symbolic link", "160000": "a submodule (another repository)"}
MAX_LISTED = 5  # problems named in the one-line refusal; the count says how many more


class Arrival(Struct, frozen=True):
    """What moving memory from one commit to another would bring: the reasons it may not
    (none: it may), and the text before and after (None: absent) of each file the checks read,
    which is every file the move adds or changes when there is no problem."""

    problems: list[str]
    texts: dict[str, tuple[str | None, str | None]]


def incoming_problems(repo: GitRepo, old: str | None, new: str) -> list[str]:
    """Each reason memory may not move from commit `old` (None: nothing yet) to `new`."""
    return check_arrival(repo, old, new).problems


def check_arrival(repo: GitRepo, old: str | None, new: str, *, messages: bool = True) -> Arrival:
    """The checks of `incoming_problems`, with the texts they read (see `Arrival`). The
    commits' messages are not read again when `messages` is off (a caller that checked them
    already, and every message it added itself)."""
    changes = list(_changes(repo, old, new))
    problems: list[str] = []
    to_read: list[tuple[str, str, str | None]] = []  # (path, new sha, old sha)
    for old_mode, new_mode, old_sha, new_sha, path in changes:
        if new_mode == _ABSENT:
            continue  # deleted: the layout check on deletions is the gate's, not sync's
        if new_mode not in _PLAIN:
            what = _KINDS.get(new_mode, f"not a regular file (mode {new_mode})")
            problems.append(f"{path} is {what}; memory files are plain files")
            continue
        try:
            resolve_memory_path(repo.path, path)
        except MemoryEditError:
            problems.append(
                f"{path} is outside the memory layout (markdown files, no hidden names)"
            )
            continue
        to_read.append((path, new_sha, old_sha if old_mode in _PLAIN else None))
    texts: dict[str, tuple[str | None, str | None]] = {}
    problems += _content_problems(repo, to_read, texts)
    problems += _count_problems(repo, old, new, changes)
    if messages:
        problems += _message_problems(repo, old, new)
    return Arrival(problems, texts)


def describe_refusal(problems: list[str]) -> str:
    """The refusal as one line: the first few problems and how many more."""
    shown = "; ".join(problems[:MAX_LISTED])
    more = len(problems) - MAX_LISTED
    tail = f"; and {more} more" if more > 0 else ""
    return (
        f"refused what the remote holds, memory is unchanged: {shown}{tail}; fix it on the "
        "remote (or another machine) and sync again"
    )


def _changes(repo: GitRepo, old: str | None, new: str) -> Iterator[tuple[str, str, str, str, str]]:
    """(old mode, new mode, old sha, new sha, path) for each file that differs."""
    base = old if old is not None else _empty_tree(repo)
    raw = repo.run_bytes("diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, new)
    fields = raw.split(b"\0")
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        old_mode, new_mode, old_sha, new_sha, _status = meta.decode("ascii").lstrip(":").split()
        yield old_mode, new_mode, old_sha, new_sha, path.decode("utf-8", "replace")


def _empty_tree(repo: GitRepo) -> str:
    return repo.run_bytes("mktree", stdin=b"").decode("ascii").strip()


def _content_problems(
    repo: GitRepo,
    files: list[tuple[str, str, str | None]],
    texts: dict[str, tuple[str | None, str | None]],
) -> list[str]:
    """The problems of each file's new text; each text read goes into `texts` with the old."""
    if not files:
        return []
    sizes = _sizes(repo, [sha for _, sha, _ in files])
    problems: list[str] = []
    readable: list[tuple[str, str, str | None]] = []
    for (path, sha, old), size in zip(files, sizes, strict=True):
        if size > MAX_FILE_BYTES:
            problems.append(f"{path} is {size} bytes, past the limit of {MAX_FILE_BYTES}")
        else:
            readable.append((path, sha, old))
    shas = [sha for _, sha, _ in readable] + [old for _, _, old in readable if old]
    blobs = dict(zip(shas, repo.read_objects(shas), strict=True))
    for path, sha, old in readable:
        try:
            text = decode_memory_bytes(blobs[sha], path)
        except FrontmatterError as exc:
            problems.append(str(exc))
            continue
        if len(text) > MAX_FILE_CHARS:
            problems.append(
                f"{path} has {len(text)} characters, past the limit of {MAX_FILE_CHARS}"
            )
            continue
        before = blobs[old].decode("utf-8", "replace") if old else None
        texts[path] = (before, text)
        known = secret_values(before) if before is not None else set()
        kinds = sorted({s.kind for s in iter_secrets(text) if text[s.start : s.end] not in known})
        if kinds:
            problems.append(f"{path} holds what looks like a secret ({', '.join(kinds)})")
    return problems


def _sizes(repo: GitRepo, shas: list[str]) -> list[int]:
    request = "".join(f"{sha}\n" for sha in shas).encode("ascii")
    output = repo.run_bytes("cat-file", "--batch-check", "--buffer", stdin=request)
    return [int(line.split()[2]) for line in output.decode("ascii").splitlines()]


def _count_problems(
    repo: GitRepo, old: str | None, new: str, changes: list[tuple[str, str, str, str, str]]
) -> list[str]:
    """A move that adds files may not take memory past its file count. The diff says how the
    count changes (each entry is one path, added, removed or changed in place), so the tree is
    listed only when files are added, and never from nothing (all of it is in the diff)."""
    added = sum(1 for old_mode, _, _, _, _ in changes if old_mode == _ABSENT)
    removed = sum(1 for _, new_mode, _, _, _ in changes if new_mode == _ABSENT)
    if added <= removed:
        return []
    count = len(repo.list_files(new)) if old is not None else added
    if count > MAX_MEMORY_FILES:
        return [f"memory would hold {count} files, past the limit of {MAX_MEMORY_FILES}"]
    return []


def _message_problems(repo: GitRepo, old: str | None, new: str) -> list[str]:
    span = f"{old}..{new}" if old is not None else new
    raw = repo.run_bytes("log", "-z", "--format=%h%n%an <%ae>%n%B", span)
    problems: list[str] = []
    for entry in raw.decode("utf-8", "replace").split("\0"):
        if not entry.strip():
            continue
        short, _, rest = entry.partition("\n")
        kinds = sorted({s.kind for s in iter_secrets(rest)})
        if kinds:
            problems.append(
                f"commit {short} has what looks like a secret in its message ({', '.join(kinds)})"
            )
    return problems
