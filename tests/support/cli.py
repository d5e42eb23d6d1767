"""run_cli: the CLI as a real subprocess with a minimal environment, the contract tests use."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def cli_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home.parent),
        "MINI_LETTA_HOME": str(home),
        "PYTHONPATH": str(SRC),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
    }
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
