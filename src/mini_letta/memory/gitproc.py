"""Starting git: `posix_spawn`, then its pipes read with `poll`.

Every memory operation starts git processes, and `subprocess.run` spent about 0.6 ms of the
caller's CPU on each (Popen's bookkeeping, `communicate`'s selector): this costs about a third
of that. The child gets what `subprocess` would give it: stdin from the caller's bytes or
/dev/null, the signals Python ignores (SIGPIPE, SIGXFSZ) back to their defaults, the executable
found on the PATH of the environment it runs in, and of the caller's descriptors only its three
(Python opens every other one close-on-exec; one made inheritable on purpose is passed on).
Without `posix_spawn` or `poll` (not a POSIX system), `subprocess.run` runs it.
"""

from __future__ import annotations

import math
import os
import select
import signal
import sys
import time

from mini_letta.structs import Struct

_CHUNK = 65536
_FOUND: dict[str, str] = {}  # the executable each PATH finds, checked again when it fails


class Finished(Struct, frozen=True):
    """What a finished process left: its exit status (negative: the signal that ended it)."""

    returncode: int
    stdout: bytes
    stderr: bytes


class ProcessTimeout(Exception):
    """The process ran past its timeout; it was killed."""


CAN_SPAWN = hasattr(os, "posix_spawn") and hasattr(select, "poll")


class Spawned(Struct, frozen=True):
    """A started child and the caller's ends of its pipes (stdin -1: it reads /dev/null)."""

    pid: int
    stdin: int
    stdout: int
    stderr: int


def run_process(
    argv: list[str], env: dict[str, str], timeout: float, stdin: bytes | None = None
) -> Finished:
    """Run `argv` (its first item found on env's PATH) to the end: FileNotFoundError when it is
    not there, ProcessTimeout (after a kill) past `timeout` seconds, OSError when it cannot
    start."""
    if not CAN_SPAWN:
        return _run_with_subprocess(argv, env, timeout, stdin)
    child = spawn(argv, env, feed=stdin is not None)
    return _collect(child, stdin or b"", time.monotonic() + timeout)


def spawn(argv: list[str], env: dict[str, str], *, feed: bool) -> Spawned:
    """Start `argv` with its output on two pipes, and its input on a third with `feed`; the
    caller reads them and reaps the child (`os.waitpid`). Needs CAN_SPAWN."""
    search = env.get("PATH", os.defpath)
    executable = _FOUND.get(search) if argv[0] == "git" else None
    if executable is None:
        executable = _which(argv[0], search)
        if argv[0] == "git":
            _FOUND[search] = executable
    pipes = [_pipe(), _pipe(), _pipe() if feed else (-1, -1)]
    (out_r, out_w), (err_r, err_w), (in_r, in_w) = pipes
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
        (os.POSIX_SPAWN_DUP2, out_w, 1),
        (os.POSIX_SPAWN_DUP2, err_w, 2),
        (os.POSIX_SPAWN_DUP2, in_r, 0)
        if feed
        else (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
    ]
    # What subprocess says when it starts a process, so every audit hook that counts them
    # (the git-call pins, the profiler) sees these too.
    sys.audit("subprocess.Popen", executable, [executable, *argv[1:]], None, env)
    try:
        pid = os.posix_spawn(
            executable,
            [executable, *argv[1:]],
            env,
            file_actions=actions,
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
        )
    except OSError:
        _FOUND.pop(search, None)  # moved or removed since it was found: look again next time
        for fd in (out_r, out_w, err_r, err_w, in_r, in_w):
            if fd >= 0:
                os.close(fd)
        raise
    for fd in (out_w, err_w, in_r):
        if fd >= 0:
            os.close(fd)
    return Spawned(pid, in_w, out_r, err_r)


def _pipe() -> tuple[int, int]:
    """A pipe whose ends are above 2 (both close-on-exec): with the caller's own stdin, stdout
    or stderr closed, a new pipe could take that number and the child's dup2 would miss it."""
    ends = os.pipe()
    if min(ends) > 2:
        return ends
    import fcntl

    moved = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in ends)
    os.close(ends[0])
    os.close(ends[1])
    return moved[0], moved[1]


def _which(name: str, search: str) -> str:
    """The first executable file `name` on `search` (shutil.which's rule, without loading it);
    FileNotFoundError when there is none."""
    if os.sep in name:
        return name
    for folder in search.split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    raise FileNotFoundError(name)


def _collect(child: Spawned, data: bytes, deadline: float) -> Finished:
    """Feed `data` to the child and read both its outputs until they end, then reap it; the
    child is killed when that takes past `deadline` or anything interrupts it (Ctrl-C)."""
    pid, in_w, out_r, err_r = child.pid, child.stdin, child.stdout, child.stderr
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    reading = {out_r, err_r}
    poller = select.poll()
    for fd in reading:
        poller.register(fd, select.POLLIN)
    view, written = memoryview(data), 0
    if in_w >= 0:
        if data:
            os.set_blocking(in_w, False)
            poller.register(in_w, select.POLLOUT)
        else:
            os.close(in_w)
            in_w = -1
    status: int | None = None
    try:
        while reading or in_w >= 0:
            left = deadline - time.monotonic()
            events = poller.poll(math.ceil(left * 1000)) if left > 0 else []
            if not events:
                raise ProcessTimeout
            for fd, _ in events:
                if fd != in_w:
                    chunk = os.read(fd, _CHUNK)
                    if chunk:
                        chunks[fd].append(chunk)
                    else:
                        poller.unregister(fd)
                        reading.discard(fd)
                    continue
                try:
                    written += os.write(fd, view[written : written + _CHUNK])
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    written = len(view)  # it stopped reading: what it said tells why
                if written >= len(view):
                    poller.unregister(fd)
                    os.close(fd)
                    in_w = -1
        status = os.waitpid(pid, 0)[1]
    finally:
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return Finished(
        os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]), b"".join(chunks[err_r])
    )


def _run_with_subprocess(
    argv: list[str], env: dict[str, str], timeout: float, stdin: bytes | None
) -> Finished:
    import subprocess

    try:
        proc = subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            env=env,
            timeout=timeout,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise ProcessTimeout from exc
    return Finished(proc.returncode, proc.stdout, proc.stderr)
