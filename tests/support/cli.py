"""The CLI as tests drive it: in-process through `main(argv, terminal)` (the default, fast),
or as a real `python -m mini_letta` subprocess for what only a process shows (the entry
point's exit code, signals, closed pipes, lazy imports). Both use the same minimal
environment: no API keys, this test's home, and the worktree's `src` first."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from mini_letta.structs import Struct

SRC = Path(__file__).resolve().parents[2] / "src"


class CliResult(Struct):
    code: int
    stdout: str
    stderr: str


def cli_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home.parent),
        "MINI_LETTA_HOME": str(home),
        "PYTHONPATH": str(SRC),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
    }
    # A CLI process reuses the compiled bytecode the test run wrote (about 0.15 s of CPU a
    # start-up); it writes none where the test run was told not to.
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


def run_cli(
    *args: str,
    home: Path,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> CliResult:
    """`python -m mini_letta ARGS` as a real process."""
    proc = subprocess.run(
        [sys.executable, "-m", "mini_letta", *args],
        cwd=cwd,
        env=cli_env(home, env),
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_cli_bytes(
    home: Path, cwd: Path, args: list[str], stdin: bytes = b"", stdout: object = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    """`python -m mini_letta ARGS` as a real process, in bytes: for input that is not UTF-8 and
    for a stdout that is not a pipe (`/dev/full`)."""
    proc = subprocess.run(
        [sys.executable, "-m", "mini_letta", *args],
        cwd=cwd,
        env=cli_env(home),
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr
    return proc


def run_cli_in_process(
    *args: str,
    home: Path,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> CliResult:
    """`main(ARGS)` in this process, with its own streams, environment and directory."""
    from mini_letta.cli.main import main
    from mini_letta.cli.terminal import Terminal

    out, err = io.StringIO(), io.StringIO()
    terminal = Terminal(io.StringIO(stdin or ""), out, err, cli_env(home, env), cwd)
    code = main(list(args), terminal)
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return CliResult(code, out.getvalue(), err.getvalue())
