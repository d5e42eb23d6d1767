"""Ctrl-C to a real CLI process while it waits for the scripted model: start, wait for the
process's OWN model request, SIGINT, collect; the child is killed and reaped on any failure.

Waiting for "any request" let a request from another process (a detached worker of an earlier
test on the same session-wide server) stand for this one, so the signal could land during the
process's start-up instead of during its model call. A child that inherited SIGINT ignored
(a test leaving SIG_IGN behind in the worker) is named, not waited out."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from support.cli import CliResult, cli_env
from support.scripted_server import ScriptedServer
from support.waiting import wait_until


def interrupt_during_model_call(
    args: list[str],
    *,
    home: Path,
    cwd: Path,
    server: ScriptedServer,
    asking: str,
    timeout: float = 30,
) -> CliResult:
    """Run `mini-letta ARGS` against `server`; once the server has a request whose body holds
    `asking`, send SIGINT and wait (at most `timeout` s) for the process to end."""
    keys = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": server.url}
    child = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", *args],
        cwd=cwd,
        env=cli_env(home, keys),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        wait_until(
            lambda: any(asking in json.dumps(r.body) for r in list(server.requests)),
            f"the process to ask the model about {asking!r}",
        )
        assert not _ignores_sigint(child.pid), "the child inherited SIGINT ignored (SIG_IGN)"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()  # reaped, its pipes closed: nothing leaks into the next test
    return CliResult(child.returncode, out, err)


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
