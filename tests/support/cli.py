"""The CLI as tests drive it: in-process through `main(argv, terminal)` (the default, fast),
or as a real `python -m mini_letta` subprocess for what only a process shows (the entry
point's exit code, signals, closed pipes, lazy imports). Both use the same minimal
environment: no API keys, this test's home, and the worktree's `src` first."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


RunCli = Callable[..., CliResult]


class ProjectSnapshot:
    """A home and a project set up once by CLI commands, for tests that all start from that
    state without testing how it was made: each test copies it (`copy_into`) instead of running
    the same commands again (a turn and a reflection run are about 15 git processes and 0.1 s of
    CPU). A JSON file that names the snapshot's folder (a run record's payload path) names the
    test's own folder in the copy, as if the commands had run there."""

    def __init__(self, root: Path, value: object) -> None:
        self.root = root
        self.value = value  # what the set-up returned (an agent's or a run's id)
        self._naming: list[str] = []
        needle = os.fsencode(root)
        for top, _, names in os.walk(root):
            for name in names:
                path = os.path.join(top, name)
                if not os.path.islink(path) and needle in Path(path).read_bytes():
                    # a log's index counts bytes: only whole JSON records are rewritten
                    assert name.endswith(".json"), f"{path} names the snapshot's folder"
                    self._naming.append(os.path.relpath(path, root))

    def copy_into(self, home: Path, project: Path) -> None:
        """The snapshot's home as `home` (not made yet), its project's files into `project`;
        both side by side, as the suite's layout has them."""
        assert home.parent == project.parent, (home, project)
        shutil.copytree(self.root / "home", home, symlinks=True)
        shutil.copytree(self.root / "project", project, symlinks=True, dirs_exist_ok=True)
        old, new = os.fsencode(self.root), os.fsencode(home.parent)
        for relative in self._naming:
            path = home.parent / relative
            path.write_bytes(path.read_bytes().replace(old, new))


_snapshots: dict[str, ProjectSnapshot] = {}


def project_snapshot(
    name: str, base: Path, set_up: Callable[[RunCli, Path], object]
) -> ProjectSnapshot:
    """The snapshot `name`, made once per test process in a new folder under `base` by
    `set_up(cli, project)` (`cli(*args, **kwargs)` runs a command in-process in `project`)."""
    if name not in _snapshots:
        root = base / f"snapshot-{name}"
        (root / "project").mkdir(parents=True)
        home, project = root / "home", root / "project"

        def cli(*args: str, **kwargs: Any) -> CliResult:
            kwargs.setdefault("cwd", project)
            return run_cli_in_process(*args, home=home, **kwargs)

        _snapshots[name] = ProjectSnapshot(root, set_up(cli, project))
    return _snapshots[name]
