"""One Python process that forks real child processes on request, for the tests that need many
real processes of one kind: the forker imports what its children need once (a turn's modules,
an SDK: up to 1.2 s of CPU a process start paid before), and each child is still a process of
its own, signalled and killed for real.

The forker reads `start KEY JOB` (JOB in JSON: it forks a child that runs the child function on
it) and `wait KEY -` (it reaps that child) on its stdin, and answers `PID KEY pid` and
`EXIT KEY code` on its stdout, where a child may say more lines of its own (one write each, so
children running side by side never mix a line).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from support.cli import SRC

TESTS = Path(__file__).resolve().parent.parent
TIMEOUT = 60

SERVER = """
import importlib, json, os, sys
module, _, name = sys.argv[1].partition(":")
child = getattr(importlib.import_module(module), name)
for preload in sys.argv[2:]:  # what every child needs, imported once here
    importlib.import_module(preload)
channel, pids = os.dup(1), {}
for command in sys.stdin:
    verb, key, job = command.rstrip("\\n").split(" ", 2)
    if verb == "wait":
        code = os.waitstatus_to_exitcode(os.waitpid(pids.pop(key), 0)[1])
        os.write(channel, f"EXIT {key} {code}\\n".encode())
        continue
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = child(key, json.loads(job), channel)
        finally:
            os._exit(code)
    pids[key] = pid
    os.write(channel, f"PID {key} {pid}\\n".encode())
"""


class Forker:
    """`Forker("support.forker:turn_loop", [...], env)`; `start`, `wait`, `close`."""

    def __init__(
        self,
        child: str,
        preload: Sequence[str],
        env: Mapping[str, str],
        *,
        cwd: Path | None = None,
        errors: Path | None = None,
    ) -> None:
        self.pids: dict[str, int] = {}
        self.exits: dict[str, int] = {}
        self.heard: list[tuple[str, str]] = []  # the children's own lines, in order
        self._errors = errors
        self._pending = b""  # read from the pipe, not yet a whole line
        with contextlib.ExitStack() as stack:
            stderr = stack.enter_context(errors.open("wb")) if errors is not None else None
            self._process = subprocess.Popen(
                [sys.executable, "-c", SERVER, child, *preload],
                cwd=cwd,
                env={**env, "PYTHONPATH": os.pathsep.join((str(SRC), str(TESTS)))},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )

    def start(self, key: str, job: Any) -> int:
        """Fork a child running on `job`; its pid."""
        self._send(f"start {key} {json.dumps(job)}")
        while key not in self.pids:
            self.read()
        return self.pids[key]

    def wait(self, key: str) -> int:
        """The child's exit code, once it has ended and been reaped (killed: -9)."""
        self._send(f"wait {key} -")
        while key not in self.exits:
            self.read()
        return self.exits[key]

    def read(self) -> None:
        """Read the next line into `pids`, `exits` or `heard`. The pipe is read here, not
        through a buffered reader: lines that arrive together (a child's and the forker's)
        would sit in its buffer while `select` waits on the empty pipe."""
        stdout = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._pending:
            ready, _, _ = select.select([stdout], [], [], TIMEOUT)
            chunk = os.read(stdout.fileno(), 65536) if ready else b""
            if not chunk:
                said = self._errors.read_text() if self._errors is not None else ""
                poll = self._process.poll()
                raise AssertionError(f"the forker stopped answering ({poll}): {said}")
            self._pending += chunk
        raw, _, self._pending = self._pending.partition(b"\n")
        line = raw.decode()
        kind, _, rest = line.strip().partition(" ")
        if kind in ("PID", "EXIT"):
            key, number = rest.split()
            (self.pids if kind == "PID" else self.exits)[key] = int(number)
        else:
            self.heard.append((kind, rest))

    def close(self) -> None:
        """Kill and reap every child not waited for yet (a failed test: none outlives it),
        then end the forker and reap it."""
        if self._process.poll() is None:
            for key, pid in list(self.pids.items()):
                if key not in self.exits:
                    os.kill(pid, signal.SIGKILL)
                    self.wait(key)
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=TIMEOUT)
        finally:
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()

    def _send(self, command: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(command.encode() + b"\n")
        self._process.stdin.flush()


def turn_loop(key: str, job: dict[str, Any], channel: int) -> int:
    """A child: `main(["chat", "-p", "<key>-<i> <text>", *extra])` `count` times, saying
    `ACK <key>-<i>` after each turn that returned; 0 when all did."""
    from mini_letta.cli.main import main

    quiet = os.open(os.devnull, os.O_RDWR)
    os.dup2(quiet, 0)
    os.dup2(quiet, 1)  # the answers; the acknowledgements go to the channel
    for i in range(job["count"]):
        if main(["chat", "-p", f"{key}-{i} {job['text']}".strip(), *job["extra"]]):
            return 1
        os.write(channel, f"ACK {key}-{i}\n".encode())
    return 0


def command(key: str, job: dict[str, Any], channel: int) -> int:
    """A child: the entry point, `run()`, as `mini-letta ARGS` in its own folder and
    environment, its output in the files `out` and `err`; its exit code."""
    from mini_letta.cli.main import run

    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for fd, name in ((1, "out"), (2, "err")):
        os.dup2(os.open(job[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    sys.argv = ["mini-letta", *job["args"]]
    try:
        run()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 1


def memory_writer(key: str, job: dict[str, Any], channel: int) -> int:
    """A child: `count` inserts into system/human.md of the memory repository `root` through
    the memory tool, each committed (`- <key>-<i>`), begun once the file `go` exists; 0 when
    every one succeeded."""
    from mini_letta.clock import SystemClock
    from mini_letta.tools.base import ToolContext
    from mini_letta.tools.memory_tool import MemoryTool

    root, go = Path(job["root"]), Path(job["go"])
    ctx = ToolContext(cwd=root, clock=SystemClock(), memory_dir=root)
    tool = MemoryTool()
    deadline = time.monotonic() + TIMEOUT
    while not go.exists() and time.monotonic() < deadline:  # every writer starts at once
        time.sleep(0.001)
    for i in range(job["count"]):
        args = {"command": "insert", "path": "system/human.md", "content": f"- {key}-{i}",
                "reason": f"{key} {i}"}  # fmt: skip
        result = tool.run(args, ctx)
        if result.is_error:
            sys.stderr.write(f"{key}-{i}: {result.content}\n")
            return 1
    return 0


def say(key: str, job: dict[str, Any], channel: int) -> int:
    """A child that writes `job["text"]` on the channel in one write (the forker's own test)."""
    os.write(channel, job["text"].encode())
    return 0
