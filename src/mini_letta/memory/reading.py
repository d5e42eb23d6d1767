"""Reading a memory repository at a commit: files, their bytes, what changed between two.

The read side of `GitRepo` (whose methods of the same names call these). A whole commit is
read with one `git cat-file --batch` process asked in rounds: the root tree, then each level's
subtrees together with the blobs found one level up, so a snapshot costs one git process
whatever the number of files or folders (`ls-tree -r` then `cat-file` took two).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from mini_letta.errors import GitError
from mini_letta.memory.gitfiles import tree_entries

SUBMODULE = "160000"  # a gitlink's mode: its sha is a commit of another repository
SYMLINK = "120000"  # a symbolic link's mode: its blob is where the link points
_TREE_MODE = b"40000"  # how a tree object writes a folder's mode (no leading zero)
_NOT_FILES = (SUBMODULE.encode(), SYMLINK.encode())
_CHUNK = 65536


class GitRepo(Protocol):
    """What reading needs of memory/repo.py's GitRepo (named here: that module calls this one)."""

    path: Path
    timeout: float

    @property
    def env(self) -> dict[str, str]: ...

    def has_head(self) -> bool: ...

    def run_bytes(self, *args: str, check: bool = True, stdin: bytes | None = None) -> bytes: ...

    def run_status(self, args: Sequence[str]) -> tuple[int, bytes]: ...

    def command(self, args: Sequence[str]) -> list[str]: ...


def show_file(repo: GitRepo, rev: str, path: str) -> str | None:
    """The text of `path` at `rev`, or None when it is not there."""
    code, data = repo.run_status(("cat-file", "blob", f"{rev}:{path}"))
    return data.decode("utf-8", "replace") if code == 0 else None


def list_files(repo: GitRepo, rev: str = "HEAD") -> list[str]:
    """Every file path at `rev`, sorted as git sorts them; [] for an empty repository."""
    if rev == "HEAD" and not repo.has_head():
        return []
    raw = repo.run_bytes("ls-tree", "-r", "-z", "--name-only", rev)
    return [item for item in raw.decode("utf-8", "replace").split("\0") if item]


def read_blobs(repo: GitRepo, rev: str = "HEAD") -> dict[str, bytes]:
    """Every file at `rev` (links and other repositories' commits left out) with its bytes, in
    git's order; one git process. GitError when `rev` names no commit or tree."""
    if rev == "HEAD" and not repo.has_head():
        return {}
    try:
        return _walk_trees(repo, rev)
    except _Unsupported:
        return listed_blobs(repo, rev)


def _walk_trees(repo: GitRepo, rev: str) -> dict[str, bytes]:
    with _CatFile(repo) as cat:
        root = cat.ask([f"{rev}^{{tree}}"])[0]
        if root is None:
            raise GitError(f"git cat-file failed: {rev!r} is not a commit in {repo.path}")
        width = len(root[0]) // 2  # a raw sha's bytes: 20 for sha1, 32 for sha256
        trees: list[tuple[str, bytes]] = [("", root[1])]
        blobs: list[tuple[str, str]] = []  # (path, sha) found, not yet asked
        found: dict[str, bytes] = {}
        while trees or blobs:
            subtrees: list[tuple[str, str]] = []
            for prefix, data in trees:
                for mode, name, sha in _tree_entries(data, width):
                    path = prefix + name
                    if mode == _TREE_MODE:
                        subtrees.append((path + "/", sha))
                    elif mode not in _NOT_FILES:
                        blobs.append((path, sha))
            answers = cat.ask([sha for _, sha in subtrees] + [sha for _, sha in blobs])
            contents = [answer[1] for answer in answers if answer is not None]
            if len(contents) < len(answers):
                raise GitError(f"git cat-file failed: an object of {rev} is missing in {repo.path}")
            trees = [(prefix, data) for (prefix, _), data in zip(subtrees, contents, strict=False)]
            for (path, _), data in zip(blobs, contents[len(subtrees) :], strict=True):
                found[path] = data
            blobs = []
    return {path: found[path] for path in sorted(found, key=lambda p: p.encode("utf-8"))}


def listed_blobs(repo: GitRepo, rev: str) -> dict[str, bytes]:
    """`read_blobs` for a git without `cat-file --batch-command`: `ls-tree`, then the blobs."""
    listing = repo.run_bytes("ls-tree", "-r", "-z", "--full-tree", rev)
    entries: list[tuple[str, str]] = []
    for item in listing.decode("utf-8", "replace").split("\0"):
        if not item:
            continue
        meta, _, path = item.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != SYMLINK:  # a link is not a memory file
            entries.append((path, sha))
    contents = read_objects(repo, [sha for _, sha in entries])
    return dict(zip((path for path, _ in entries), contents, strict=True))


def read_objects(repo: GitRepo, shas: Sequence[str]) -> list[bytes]:
    """The contents of objects by sha, in order, with one git process."""
    if not shas:
        return []
    request = "".join(f"{sha}\n" for sha in shas).encode("ascii")
    return parse_batch(repo.run_bytes("cat-file", "--batch", "--buffer", stdin=request))


def read_changed_blobs(
    repo: GitRepo, old: str, new: str
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """The files that differ between two commits, as (at `old`, at `new`): a file added has no
    `old` side, a file removed no `new` side. Two git processes, reading only what changed,
    whatever the size of the memory."""
    raw = repo.run_bytes("diff", "--raw", "-z", "--no-renames", "--no-abbrev", old, new)
    fields = raw.split(b"\0")
    sides: list[tuple[int, str, str]] = []  # (0 old / 1 new, path, blob sha)
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        old_mode, new_mode, old_sha, new_sha, _status = meta.decode("ascii").split()
        name = path.decode("utf-8", "replace")
        for side, mode, sha in ((0, old_mode, old_sha), (1, new_mode, new_sha)):
            if sha.strip("0") and mode != SUBMODULE:  # absent, or another repo's commit
                sides.append((side, name, sha))
    found: tuple[dict[str, bytes], dict[str, bytes]] = ({}, {})
    if not sides:
        return found
    contents = read_objects(repo, [sha for _, _, sha in sides])
    for (side, name, _), blob in zip(sides, contents, strict=True):
        found[side][name] = blob
    return found


def parse_batch(output: bytes) -> list[bytes]:
    """Split `git cat-file --batch` output into the objects' contents, in request order."""
    blobs: list[bytes] = []
    position = 0
    while position < len(output):
        header_end = output.index(b"\n", position)
        header = output[position:header_end].split()
        if len(header) != 3:
            raise GitError(f"git cat-file gave an unexpected header: {header!r}")
        size = int(header[2])
        start = header_end + 1
        blobs.append(output[start : start + size])
        position = start + size + 1
    return blobs


def _tree_entries(data: bytes, width: int) -> list[tuple[bytes, str, str]]:
    """(mode, name, hex sha) of each entry of a tree object git printed."""
    try:
        return [
            (mode, name.decode("utf-8", "replace"), sha)
            for mode, name, sha in tree_entries(data, width)
        ]
    except ValueError:
        raise GitError("git cat-file gave a tree cut short") from None


class _Unsupported(GitError):
    """This git has no `cat-file --batch-command` (before 2.36): it is read the older way."""


class _CatFile:
    """One `git cat-file --batch-command --buffer` process, asked in rounds that each end with
    `flush`: a round's requests are written while its answers are read (neither pipe can fill
    and stall the other), within the repository's timeout for the whole exchange."""

    def __init__(self, repo: GitRepo) -> None:
        from mini_letta.memory.gitproc import CAN_SPAWN, spawn

        if not CAN_SPAWN:
            raise _Unsupported("this system cannot keep a git process to talk to")
        self._repo = repo
        self._deadline = time.monotonic() + repo.timeout
        self._buffer = bytearray()
        self._errors = bytearray()
        argv = repo.command(("cat-file", "--batch-command", "--buffer"))
        try:
            child = spawn(argv, repo.env, feed=True)
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git") from exc
        except OSError as exc:
            raise GitError(f"git cat-file could not run in {repo.path}: {exc.strerror}") from exc
        self._pid, self._in, self._out, self._err = (
            child.pid,
            child.stdin,
            child.stdout,
            child.stderr,
        )
        self._status: int | None = None
        os.set_blocking(self._in, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._selector.register(self._err, selectors.EVENT_READ)

    def __enter__(self) -> _CatFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the requests, read to the end of git's output (it exits), then reap it; a git
        that does not end in time, or a read cut short by an error, is killed."""
        kill = exc_info[0] is not None
        try:
            if self._in >= 0:
                os.close(self._in)
                self._in = -1
            while not kill and self._out in self._selector.get_map() and self._read_ready():
                pass
        except GitError:
            kill = True  # timed out
        finally:
            self._selector.close()
            for fd in (self._out, self._err):
                os.close(fd)
            self._reap(kill=kill)

    def _reap(self, *, kill: bool) -> int:
        if self._status is None:
            if kill:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, signal.SIGKILL)
            self._status = os.waitstatus_to_exitcode(os.waitpid(self._pid, 0)[1])
        return self._status

    def ask(self, names: Sequence[str]) -> list[tuple[str, bytes] | None]:
        """(sha, contents) of each object named, in order; None for one git does not have."""
        answers: list[tuple[str, bytes] | None] = []
        if not names:
            return answers
        lines = "".join(f"contents {name}\n" for name in names) + "flush\n"
        request = memoryview(lines.encode("utf-8"))
        written = 0
        fd = self._in
        self._selector.register(fd, selectors.EVENT_WRITE)
        try:
            while len(answers) < len(names):
                if written < len(request) and self._writable(fd):
                    try:
                        written += os.write(fd, request[written : written + _CHUNK])
                    except BlockingIOError:
                        pass
                    except BrokenPipeError:
                        written = len(request)  # git is gone: the end of its output says why
                    if written >= len(request):
                        self._selector.unregister(fd)
                    continue
                if not self._read_ready():
                    raise self._failure()
                answers += self._answers(len(names) - len(answers))
        finally:
            if fd in self._selector.get_map():
                self._selector.unregister(fd)
        return answers

    def _writable(self, fd: int) -> bool:
        """Wait for the next event; True when it is room to write requests (then nothing was
        read), False when output was read (into the buffers)."""
        ready = self._wait()
        if any(key.fd == fd for key, _ in ready):
            return True
        self._read(ready)
        return False

    def _read_ready(self) -> bool:
        """Read what git printed once it printed something; False at the end of its output."""
        return self._read(self._wait(reading=True))

    def _wait(self, *, reading: bool = False) -> list[tuple[selectors.SelectorKey, int]]:
        while True:
            left = self._deadline - time.monotonic()
            ready = self._selector.select(left) if left > 0 else []
            if not ready:
                self._reap(kill=True)
                raise GitError(
                    f"git cat-file timed out after {self._repo.timeout:g}s in {self._repo.path}"
                )
            if reading:
                ready = [(key, event) for key, event in ready if key.fd in (self._out, self._err)]
                if not ready:
                    continue
            return ready

    def _read(self, ready: list[tuple[selectors.SelectorKey, int]]) -> bool:
        """Read each ready output pipe; False when stdout has ended."""
        alive = True
        for key, _ in ready:
            chunk = os.read(key.fd, _CHUNK)
            if not chunk:
                self._selector.unregister(key.fd)
            if key.fd == self._err:
                self._errors += chunk
            elif chunk:
                self._buffer += chunk
            else:
                alive = False
        return alive

    def _answers(self, wanted: int) -> list[tuple[str, bytes] | None]:
        """The whole answers at the front of the buffer (at most `wanted`), taken out of it."""
        found: list[tuple[str, bytes] | None] = []
        buffer = self._buffer
        position = 0
        while len(found) < wanted:
            header_end = buffer.find(b"\n", position)
            if header_end < 0:
                break
            header = bytes(buffer[position:header_end]).split()
            if len(header) == 2 and header[1] in (b"missing", b"ambiguous"):
                found.append(None)
                position = header_end + 1
                continue
            if len(header) != 3:
                raise GitError(f"git cat-file gave an unexpected header: {header!r}")
            start = header_end + 1
            end = start + int(header[2])
            if end + 1 > len(buffer):
                break  # the rest of this object is still on its way
            found.append((header[0].decode("ascii"), bytes(buffer[start:end])))
            position = end + 1
        del buffer[:position]
        return found

    def _failure(self) -> GitError:
        """Why git stopped answering (its output ended): the first line it printed."""
        while self._err in self._selector.get_map() and self._read(self._wait(reading=True)):
            pass
        code = self._reap(kill=False)  # its output has ended: it is exiting
        said = self._errors.decode("utf-8", "replace").strip().splitlines()
        first = said[0][:300] if said else "it stopped before answering"
        if code == 129:  # git's exit status for an option it does not know
            return _Unsupported(first)
        return GitError(f"git cat-file failed: {first}")
