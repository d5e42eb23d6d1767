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
import signal
from pathlib import Path

import pytest

from support.cli import CliResult, cli_env
from support.forker import Forker
from support.scripted_server import ScriptedServer
from support.waiting import wait_until

# The tests that share a worker's forker: one worker runs them all, so the SDK is imported once.
SHARES_THE_FORKER = pytest.mark.xdist_group("model-commands")


class ModelCommands:
    """The forker: `start` a command, `wait` for its exit code; `close` at the end."""

    def __init__(self) -> None:
        self._forker: Forker | None = None

    def start(self, args: list[str], cwd: Path, env: dict[str, str], folder: Path) -> int:
        """Fork `mini-letta ARGS`; its output goes to `folder`/out and err. Its pid."""
        if self._forker is None:
            preload = ["openai", "mini_letta.cli.main"]  # what a real model's turn loads
            self._forker = Forker("support.forker:command", preload, os.environ)
        job = {"args": args, "cwd": str(cwd), "env": env}
        job |= {"out": str(folder / "out"), "err": str(folder / "err")}
        return self._forker.start(str(len(self._forker.pids)), job)

    def wait(self, pid: int) -> int:
        assert self._forker is not None
        [key] = [key for key, known in self._forker.pids.items() if known == pid]
        return self._forker.wait(key)

    def close(self) -> None:
        if self._forker is not None:
            self._forker.close()


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
