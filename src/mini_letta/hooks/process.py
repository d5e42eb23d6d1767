"""One hook command run by the shell: JSON on stdin, bounded in time and in output.

The command runs as `bash -c` (or `sh -c`) in the project folder, in its own process group,
with the environment it is given (the caller has taken the credentials out). Its stdin gets the
event's JSON from a thread, so a hook that never reads it cannot hold us up; stdout and stderr
are read as they come and only their first OUTPUT_CAP bytes are kept. On timeout the whole
group is killed. Nothing here raises for the hook's sake: a command that cannot start is an
outcome like any other.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from mini_letta.structs import Struct
from mini_letta.tools.shell import (
    DRAIN_TIMEOUT,
    OutputCollector,
    kill_group,
    pump_stream,
    wait_for_exit,
)

OUTPUT_CAP = 64 * 1024  # bytes kept of each stream


class HookRun(Struct, frozen=True):
    """How one command ended: `code` None when it timed out or could not start (`failure`)."""

    code: int | None
    stdout: str
    stderr: str
    failure: str = ""


def run_hook_command(
    command: str, payload: bytes, cwd: Path, env: Mapping[str, str], timeout: float
) -> HookRun:
    shell = shutil.which("bash", path=env.get("PATH")) or "/bin/sh"
    try:
        proc = subprocess.Popen(
            [shell, "-c", command],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=dict(env),
        )
    except OSError as exc:
        return HookRun(None, "", "", f"could not start ({exc.strerror or exc})")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out, err = OutputCollector(OUTPUT_CAP, 0), OutputCollector(OUTPUT_CAP, 0)
    threads = [
        threading.Thread(target=_feed, args=(proc.stdin, payload), daemon=True),
        threading.Thread(
            target=pump_stream, args=(cast(io.BufferedReader, proc.stdout), out), daemon=True
        ),
        threading.Thread(
            target=pump_stream, args=(cast(io.BufferedReader, proc.stderr), err), daemon=True
        ),
    ]
    for thread in threads:
        thread.start()
    failure = ""
    try:
        wait_for_exit(proc, timeout)
    except subprocess.TimeoutExpired:
        failure = f"timed out after {timeout:g}s and was stopped"
        kill_group(proc)
        proc.wait()
    except BaseException:  # Ctrl-C: the hook must not outlive us
        kill_group(proc)
        proc.wait()
        raise
    finally:
        _finish(proc, threads)
    code = None if failure else proc.returncode
    return HookRun(code, _text(out), _text(err), failure)


def _feed(stdin: io.BufferedWriter | object, payload: bytes) -> None:
    writer = cast(io.BufferedWriter, stdin)
    with contextlib.suppress(OSError):  # the hook exited without reading it all
        writer.write(payload)
    with contextlib.suppress(OSError):
        writer.close()


def _finish(proc: subprocess.Popen[bytes], threads: list[threading.Thread]) -> None:
    """Let the readers drain; a background child still holding a pipe is stopped too. The
    readers share one drain period (joined one by one, each took its own: a child holding
    both pipes cost twice the period)."""
    _join(threads)
    if any(thread.is_alive() for thread in threads):
        kill_group(proc)
        _join(threads)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _join(threads: list[threading.Thread]) -> None:
    deadline = time.monotonic() + DRAIN_TIMEOUT
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


def _text(collector: OutputCollector) -> str:
    return bytes(collector.head).decode("utf-8", errors="replace")
