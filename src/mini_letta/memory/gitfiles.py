"""What a repository's `.git` files say without running git: its folders, HEAD, a ref, the
config files' stamp and the driver words they mention. Each answer is one git would give, or
`ASK_GIT` (or None, where said) when only git can tell (a reftable, anything unusual)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

SHA_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")

ASK_GIT = "ask git"  # what `read_head` says when the files alone cannot answer


def git_dirs(work_tree: Path) -> tuple[Path, Path] | None:
    """(the git dir, the common dir) of `work_tree`: both `.git` for a plain checkout; for a
    linked worktree, its `.git` file names its own git dir (HEAD, index), whose `commondir`
    leads to the shared one (refs, config). None when the files do not say."""
    dot_git = work_tree / ".git"
    try:
        if dot_git.is_dir():
            return dot_git, dot_git
        text = dot_git.read_text(encoding="utf-8").strip()
        if not text.startswith("gitdir: "):
            return None
        git_dir = work_tree / text.removeprefix("gitdir: ")
        common = git_dir
        if (git_dir / "commondir").is_file():
            shared = (git_dir / "commondir").read_text(encoding="utf-8").strip()
            common = Path(os.path.normpath(git_dir / shared))  # the checkout's own `.git`
        return git_dir, common
    except (OSError, UnicodeDecodeError):
        return None


def head_file(work_tree: Path) -> tuple[str, Path] | None:
    """(HEAD's text, the folder its refs are in) when plain files git reads as they are (no
    reftable) hold them; None when only git can say what HEAD is."""
    dirs = git_dirs(work_tree)
    if dirs is None:
        return None
    git_dir, common = dirs
    try:
        if (common / "reftable").exists():
            return None
        return (git_dir / "HEAD").read_text(encoding="ascii").strip(), common
    except (OSError, UnicodeDecodeError):
        return None


def read_head(work_tree: Path) -> str | None:
    """HEAD's sha from the files git keeps it in; None for a branch with no commit yet;
    `ASK_GIT` when that needs git to answer."""
    found = head_file(work_tree)
    if found is None:
        return ASK_GIT
    head, refs = found
    if not head.startswith("ref: "):
        return head if SHA_RE.fullmatch(head) else ASK_GIT
    ref = head[5:]
    if not ref.startswith("refs/heads/"):
        return ASK_GIT
    return read_ref(refs, ref)


def stored_ref(git_dir: Path, ref: str) -> str | None:
    """The sha a branch-like `ref` holds in the repository at `git_dir` (a bare repository's
    folder), read from its files; None when it has none or only git could say (a reftable)."""
    if (git_dir / "reftable").exists():
        return None
    found = read_ref(git_dir, ref)
    return None if found is ASK_GIT else found


def read_ref(refs: Path, ref: str) -> str | None:
    """The sha a branch-like ref (never a symbolic one) names, from the loose file or
    packed-refs under `refs`; None when neither has it; `ASK_GIT` when they cannot say."""
    try:
        loose = refs / ref
        if loose.is_file():
            sha = loose.read_text(encoding="ascii").strip()
            return sha if SHA_RE.fullmatch(sha) else ASK_GIT
        packed_refs = refs / "packed-refs"
        if not packed_refs.exists():
            return None  # an unborn branch: no commit yet
        packed = packed_refs.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ASK_GIT
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and SHA_RE.fullmatch(sha):
            return sha
    return None  # not packed either: unborn


def raise_unless_missing(error: OSError) -> None:
    """`os.walk`'s error handler: a folder that cannot be listed is not an empty one."""
    if not isinstance(error, FileNotFoundError):
        raise error


# Every section a driver (or a file that could define one) is declared in has one of these
# words in its header, whatever the spelling: section names are ASCII and case-insensitive.
_DRIVER_SECTIONS = (b"filter", b"merge", b"remote", b"include")


def config_mentions(
    git_dir: Path, common: Path, words: tuple[bytes, ...] = _DRIVER_SECTIONS
) -> frozenset[bytes] | None:
    """Which of `words` (lower case; by default `_DRIVER_SECTIONS`) the config files git reads
    for this work tree (the shared `config`, a `config.worktree` in either git dir) mention
    anywhere, comments and values included; None when one cannot be read. None of the
    default words: the repository defines no driver."""
    found: set[bytes] = set()
    for path in (common / "config", common / "config.worktree", git_dir / "config.worktree"):
        try:
            text = path.read_bytes().lower()
        except FileNotFoundError:
            continue
        except OSError:
            return None
        found.update(word for word in words if word in text)
    return frozenset(found)


def config_stamp(git_dir: Path, common: Path) -> tuple[int, ...] | None:
    """(inode, mtime, size) of the config files git reads for a work tree; None if unsure
    (the shared config, and a linked worktree's own `config.worktree`)."""
    stamp: list[int] = []
    try:
        for path in (common / "config", git_dir / "config.worktree"):
            if path.exists():
                info = path.stat()
                stamp += [info.st_ino, info.st_mtime_ns, info.st_size]
            else:
                stamp += [-1]
    except OSError:
        return None
    return tuple(stamp)


def commit_tree(work_tree: Path, commit: str) -> str | None:
    """The tree sha of `commit`, read from its loose object; None when it is not a loose
    object of this repository (a packed one needs git)."""
    dirs = git_dirs(work_tree)
    return None if dirs is None else loose_commit_tree(dirs[1], commit)


def loose_commit_tree(common: Path, commit: str) -> str | None:
    """The tree sha a loose commit object under the common git dir names; None when there is
    no such loose commit or it does not read as one."""
    found = read_loose_object(common, commit)
    if found is None or found[0] != b"commit" or not found[1].startswith(b"tree "):
        return None
    tree = found[1][5 : found[1].find(b"\n")].decode("ascii", "replace")
    return tree if SHA_RE.fullmatch(tree) else None


def tree_entries(body: bytes, width: int = 20) -> Iterator[tuple[bytes, bytes, str]]:
    """(mode, name, hex sha) of each entry of a tree object's body: `<mode> <name>\\0<raw
    sha>`, the sha `width` bytes (20 for sha1, 32 for sha256); ValueError when it is cut
    short or not of that shape."""
    position = 0
    while position < len(body):
        space = body.index(b" ", position)
        nul = body.index(b"\0", space)
        end = nul + 1 + width
        if end > len(body):
            raise ValueError("a tree object cut short")
        yield body[position:space], body[space + 1 : nul], body[nul + 1 : end].hex()
        position = end


_OBJECT_KINDS = (b"commit", b"tree", b"blob", b"tag")


def read_loose_object(
    common: Path, sha: str, *, header_only: bool = False, max_bytes: int | None = None
) -> tuple[bytes, bytes] | None:
    """(kind, body) of object `sha` from its loose file under the common git dir (zlib:
    `<kind> <size>\0<body>`); with `header_only` only the kind is inflated (the body is
    empty). None when it has none (packed, absent), it is damaged, or its file is over
    `max_bytes`."""
    import zlib

    if not SHA_RE.fullmatch(sha):
        return None
    try:
        with open(common / "objects" / sha[:2] / sha[2:], "rb") as file:
            raw = file.read() if max_bytes is None else file.read(max_bytes + 1)
    except OSError:
        return None
    if max_bytes is not None and len(raw) > max_bytes:
        return None
    try:
        inflate = zlib.decompressobj()
        data = inflate.decompress(raw, 32 if header_only else 0)
    except zlib.error:
        return None
    header, nul, body = data.partition(b"\0")
    kind, _, size = header.partition(b" ")
    if not nul or not size.isdigit() or kind not in _OBJECT_KINDS:
        return None
    if header_only:
        return kind, b""
    return (kind, body) if int(size) == len(body) and inflate.eof else None


def tree_sha(files: dict[str, bytes], *, sha256: bool = False) -> str:
    """The sha git gives the tree of `files` (path -> bytes, each a plain 100644 file), hashed
    here as git hashes objects: `<kind> <size>\\0<body>`, a tree's entries in git's order (a
    folder's name compares as if it ended in `/`)."""
    root: dict[str, object] = {}
    for path, data in files.items():
        node = root
        *folders, name = path.split("/")
        for folder in folders:
            child = node.setdefault(folder, {})
            assert isinstance(child, dict)
            node = child
        node[name] = _object_sha(b"blob", data, sha256)
    return _tree_object(root, sha256)


def _tree_object(node: dict[str, object], sha256: bool) -> str:
    entries: list[tuple[bytes, bytes]] = []
    for name, value in node.items():
        raw = name.encode("utf-8")
        if isinstance(value, dict):
            entries.append(
                (raw + b"/", b"40000 " + raw + b"\0" + bytes.fromhex(_tree_object(value, sha256)))
            )
        else:
            assert isinstance(value, str)
            entries.append((raw, b"100644 " + raw + b"\0" + bytes.fromhex(value)))
    return _object_sha(b"tree", b"".join(entry for _, entry in sorted(entries)), sha256)


def _object_sha(kind: bytes, body: bytes, sha256: bool) -> str:
    import hashlib

    digest = hashlib.sha256() if sha256 else hashlib.sha1()  # noqa: S324 - git's object names
    digest.update(kind + b" " + str(len(body)).encode("ascii") + b"\0")
    digest.update(body)
    return digest.hexdigest()


GC_AUTO = 1000  # the harness's gc.auto: packed sooner than git's 6,700 loose objects
GC_AUTO_PACK_LIMIT = 50  # the harness's gc.autoPackLimit
_LOOSE_NAME = re.compile(r"[0-9a-f]{38}|[0-9a-f]{62}")  # git's loose objects in one folder


def pack_due(work_tree: Path) -> bool:
    """Whether `git gc --auto` would pack anything, by git's own rule read from the files:
    more than GC_AUTO/256 loose objects in `objects/17`, or more than GC_AUTO_PACK_LIMIT
    packs. It counts every pack (git leaves out kept ones) and says True when unsure, so
    it may call git for nothing but never skips a packing git would do."""
    dirs = git_dirs(work_tree)
    if dirs is None:
        return True
    objects = dirs[1] / "objects"
    threshold = -(-GC_AUTO // 256)
    try:
        loose = 0
        with os.scandir(objects / "17") as entries:
            for entry in entries:
                if _LOOSE_NAME.fullmatch(entry.name):
                    loose += 1
                    if loose > threshold:
                        return True
    except FileNotFoundError:
        pass
    except OSError:
        return True
    try:
        with os.scandir(objects / "pack") as entries:
            packs = sum(1 for entry in entries if entry.name.endswith(".pack"))
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return packs > GC_AUTO_PACK_LIMIT


def may_have_worktrees(work_tree: Path) -> bool:
    """Whether git may know a linked worktree (an entry in `worktrees/` of the common git
    dir): False only when that folder is certainly absent or empty."""
    dirs = git_dirs(work_tree)
    if dirs is None:
        return True
    try:
        return any((dirs[1] / "worktrees").iterdir())
    except FileNotFoundError:
        return False
    except OSError:
        return True


def may_have_branches(work_tree: Path, prefix: str) -> bool:
    """Whether a branch under `refs/heads/<prefix>` may exist, read from the loose refs and
    packed-refs; True when unsure (a reftable, an unreadable file)."""
    dirs = git_dirs(work_tree)
    if dirs is None:
        return True
    common = dirs[1]
    try:
        if (common / "reftable").exists():
            return True
        loose = common / "refs" / "heads" / prefix
        if any(files for _, _, files in os.walk(loose, onerror=raise_unless_missing)):
            return True
        packed = (common / "packed-refs").read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return b" refs/heads/" + prefix.encode("utf-8") in packed
