"""Ctrl-C to a real CLI process while it waits for the scripted model: start, wait for the
process's OWN model request, SIGINT, collect; the child is killed and reaped on any failure.

Waiting for "any request" let a request from another process (a detached worker of an earlier
test on the same session-wide server) stand for this one, so the signal could land during the
process's start-up instead of during its model call. A child that inherited SIGINT ignored
(a test leaving SIG_IGN behind in the worker) is named, not waited out.

The processes are forked by `ModelCommands`, one Python per test worker that has imported the
OpenAI SDK (about 1.2 s of CPU, which each process paid before) and runs the entry point,
`run()`, in each child: a process of its own with its own streams, environment and folder,
signalled for real.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import SRC, CliResult, cli_env
from support.scripted_server import ScriptedServer
from support.waiting import wait_until

FORKER = """
import json, os, sys
import openai  # what a real model's turn loads, once for every command forked below
from mini_letta.cli.main import run
channel, pids = os.dup(1), {}
for command in sys.stdin:
    verb, _, rest = command.strip().partition(" ")
    if verb == "wait":
        code = os.waitstatus_to_exitcode(os.waitpid(pids.pop(rest), 0)[1])
        os.write(channel, f"EXIT {rest} {code}\\n".encode())
        continue
    job = json.loads(rest)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
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
                code = exc.code
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    pids[str(pid)] = pid
    os.write(channel, f"PID {pid}\\n".encode())
"""

TIMEOUT = 60
# The tests that share a worker's forker: one worker runs them all, so the SDK is imported once.
SHARES_THE_FORKER = pytest.mark.xdist_group("model-commands")


class ModelCommands:
    """The forker: `start` a command, `wait` for its exit code; `close` at the end."""

    def __init__(self) -> None:
        self._forker: subprocess.Popen[str] | None = None

    def start(self, args: list[str], cwd: Path, env: dict[str, str], folder: Path) -> int:
        """Fork `mini-letta ARGS`; its output goes to `folder`/out and err. Its pid."""
        forker = self._started()
        job = {"args": args, "cwd": str(cwd), "env": env}
        job |= {"out": str(folder / "out"), "err": str(folder / "err")}
        assert forker.stdin is not None
        forker.stdin.write(f"start {json.dumps(job)}\n")
        forker.stdin.flush()
        kind, pid = self._read()
        assert kind == "PID", (kind, pid)
        return int(pid)

    def wait(self, pid: int) -> int:
        forker = self._started()
        assert forker.stdin is not None
        forker.stdin.write(f"wait {pid}\n")
        forker.stdin.flush()
        kind, rest = self._read()
        assert kind == "EXIT" and rest.split()[0] == str(pid), (kind, rest)
        return int(rest.split()[1])

    def close(self) -> None:
        if self._forker is None:
            return
        assert self._forker.stdin is not None and self._forker.stdout is not None
        self._forker.stdin.close()
        try:
            self._forker.wait(timeout=TIMEOUT)
        finally:
            if self._forker.poll() is None:
                self._forker.kill()
                self._forker.wait()
            self._forker.stdout.close()

    def _started(self) -> subprocess.Popen[str]:
        if self._forker is None:
            self._forker = subprocess.Popen(
                [sys.executable, "-c", FORKER],
                env={**os.environ, "PYTHONPATH": str(SRC)},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        return self._forker

    def _read(self) -> tuple[str, str]:
        assert self._forker is not None and self._forker.stdout is not None
        ready, _, _ = select.select([self._forker.stdout], [], [], TIMEOUT)
        line = self._forker.stdout.readline() if ready else ""
        assert line, f"the command forker stopped answering (exit {self._forker.poll()})"
        kind, _, rest = line.strip().partition(" ")
        return kind, rest


def interrupt_during_model_call(
    args: list[str],
    *,
    commands: ModelCommands,
    home: Path,
    cwd: Path,
    folder: Path,
    server: ScriptedServer,
    asking: str,
    timeout: float = 30,
) -> CliResult:
    """Run `mini-letta ARGS` against `server`; once the server has a request whose body holds
    `asking`, send SIGINT and wait (at most `timeout` s) for the process to end."""
    keys = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": server.url}
    folder.mkdir(parents=True, exist_ok=True)
    pid = commands.start(args, cwd, cli_env(home, keys), folder)
    try:
        wait_until(
            lambda: any(asking in json.dumps(r.body) for r in list(server.requests)),
            f"the process to ask the model about {asking!r}",
        )
        assert not _ignores_sigint(pid), "the child inherited SIGINT ignored (SIG_IGN)"
        os.kill(pid, signal.SIGINT)
        wait_until(lambda: _ended(pid), "the interrupted process to end", timeout=timeout)
    finally:
        if not _ended(pid):
            os.kill(pid, signal.SIGKILL)
        code = commands.wait(pid)  # reaped: nothing leaks into the next test
    read = (folder / "out").read_text(encoding="utf-8"), (folder / "err").read_text("utf-8")
    return CliResult(code, *read)


def _ended(pid: int) -> bool:
    """True once the process has exited (a zombie its parent has not reaped yet counts)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def _ignores_sigint(pid: int) -> bool:
    """True when the process ignores SIGINT (Linux: its SigIgn mask); a parent that ignored it
    when starting the process passed that on, and the signal would be lost."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return False
    for line in status.read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False
