"""Bash: run a command in the working directory, bounded in time and in output.

The command runs as `bash -c` (or `sh -c`) in its own process group with no stdin, in an
environment without credentials (tools/environment.py). On timeout, or on Ctrl-C, the whole
group is killed, so children die with it. Output (stdout and stderr interleaved) is read as it
comes and only its head and tail are kept, so a command that prints gigabytes costs a bounded
amount of memory. A non-zero exit or a timeout is an error result.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import select
import shutil
import signal
import subprocess
import threading
from collections import deque
from typing import Any, cast

from mini_letta.llm.base import ToolSpec
from mini_letta.storage.fields import require_str
from mini_letta.structs import Struct
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult
from mini_letta.tools.environment import shell_environment
from mini_letta.tools.output import cap_text, strip_ansi

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
DRAIN_TIMEOUT = 1.0  # after the shell exits, how long leftover children may hold the pipe
_CHUNK = 65536


class CommandOutcome(Struct, frozen=True):
    returncode: int | None  # None when it timed out
    output: str
    timed_out: bool


class OutputCollector:
    """Keeps the first `head` and the last `tail` bytes of a stream, and counts the rest."""

    def __init__(self, head: int, tail: int) -> None:
        self.head_limit = head
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.tail_limit = tail
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail.append(data)
            self.tail_size += len(data)
            while self.tail and self.tail_size - len(self.tail[0]) >= self.tail_limit:
                self.tail_size -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)[-self.tail_limit :] if self.tail else b""
        omitted = self.total - len(self.head) - len(tail)
        head_text = self.head.decode("utf-8", errors="replace")
        if omitted <= 0:
            return head_text + tail.decode("utf-8", errors="replace")
        marker = f"\n… [{omitted:,} bytes of output omitted] …\n"
        return head_text + marker + tail.decode("utf-8", errors="replace")


def pump_stream(stream: io.BufferedReader, collector: OutputCollector) -> None:
    while chunk := stream.read1(_CHUNK):
        collector.feed(chunk)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)


def wait_for_exit(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """`proc.wait(timeout)`, woken by the exit itself where the system can say (a pidfd):
    Popen.wait with a timeout looks again after sleeps that grow to 50 ms, which a quick
    command or hook (run on every tool call) paid after it had already exited."""
    pidfd_open = getattr(os, "pidfd_open", None)  # Linux; elsewhere Popen's own wait
    try:
        fd = pidfd_open(proc.pid) if pidfd_open is not None else None
    except OSError:  # an older kernel
        fd = None
    if fd is None:
        proc.wait(timeout=timeout)
        return
    try:  # poll, not select: a long session's descriptors may number past select's 1024
        waiting = select.poll()
        waiting.register(fd, select.POLLIN)
        exited = waiting.poll(max(0, math.ceil(timeout * 1000)))
    finally:
        os.close(fd)
    if not exited:
        raise subprocess.TimeoutExpired(proc.args, timeout)
    proc.wait()


def run_command(
    command: str, ctx: ToolContext, timeout: float, env: dict[str, str] | None
) -> CommandOutcome:
    shell = shutil.which("bash") or "/bin/sh"
    proc = subprocess.Popen(
        [shell, "-c", command],
        cwd=ctx.cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    assert proc.stdout is not None
    half = max(ctx.output_cap // 2, 1024)
    collector = OutputCollector(half, half)
    reader = threading.Thread(
        target=pump_stream, args=(cast(io.BufferedReader, proc.stdout), collector), daemon=True
    )
    reader.start()
    timed_out = False
    try:
        wait_for_exit(proc, timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc)
        proc.wait()
    except BaseException:  # Ctrl-C: the command must not outlive us
        kill_group(proc)
        proc.wait()
        reader.join(DRAIN_TIMEOUT)
        proc.stdout.close()
        raise
    reader.join(DRAIN_TIMEOUT)
    if reader.is_alive():  # a background child still holds the pipe: stop it too
        kill_group(proc)
        reader.join(DRAIN_TIMEOUT)
    proc.stdout.close()
    output = strip_ansi(collector.text())
    return CommandOutcome(None if timed_out else proc.returncode, output, timed_out)


class BashTool:
    spec = ToolSpec(
        name="Bash",
        description=(
            "Run a shell command (bash -c) in the working directory; stdout and stderr are "
            f"returned together, capped. timeout in seconds (default {DEFAULT_TIMEOUT:g}, max "
            f"{MAX_TIMEOUT:g})."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT},
            },
            "required": ["command"],
        },
    )
    kind: ToolKind = "execute"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = require_str(args, "command", non_empty=True)
        timeout = args.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            raise ToolInputError("'timeout' must be a positive number of seconds")
        timeout = min(float(timeout), MAX_TIMEOUT)
        env = shell_environment(ctx.environ, ctx.bash_env_allow)
        outcome = run_command(command, ctx, timeout, env)
        body = cap_text(outcome.output, ctx.output_cap).rstrip("\n") or "(no output)"
        if outcome.timed_out:
            return ToolResult(
                f"Timed out after {timeout:g}s; the command and its children were stopped.\n{body}",
                True,
            )
        code = outcome.returncode
        if code is not None and code < 0:
            return ToolResult(f"Killed by signal {-code}.\n{body}", True)
        if code:
            return ToolResult(f"Exit code {code}.\n{body}", True)
        return ToolResult(body)
