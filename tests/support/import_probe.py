"""One Python process that runs CLI commands one after another through `main()` and tells,
after each, which modules that command loaded first: what a command imports, checked by name
(tests/cli/test_lazy_imports_cli.py) without a process start per command.

Modules stay loaded, so a name absent from `loaded` after several commands was imported by none
of them; a test orders its commands so that each check holds for all the commands before it.
The commands' own output goes to files, the answers to a pipe of their own."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from types import TracebackType

from support.cli import cli_env

CHILD = """
import os, sys
requests, replies = os.fdopen(int(sys.argv[1]), "r"), os.fdopen(int(sys.argv[2]), "w")
import json
before = set(sys.modules)
for line in requests:
    step = json.loads(line)
    os.chdir(step["cwd"])
    saved = {name: os.environ.get(name) for name in step["env"]}
    os.environ.update(step["env"])
    from mini_letta.cli.main import main
    code = main(step["args"])
    for name, value in saved.items():
        if value is None:
            del os.environ[name]
        else:
            os.environ[name] = value
    now = set(sys.modules)
    replies.write(json.dumps({"code": code, "new": sorted(now - before)}) + "\\n")
    replies.flush()
    before = now
"""

TIMEOUT = 60


class ImportProbe:
    """`with ImportProbe(home, folder) as probe: probe.run("chat", "-p", "hi", cwd=project)`."""

    def __init__(self, home: Path, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.stdout, self.stderr = folder / "probe.out", folder / "probe.err"
        self.loaded: set[str] = set()  # every module the commands so far loaded
        to_child, self._requests = os.pipe()
        self._replies, from_child = os.pipe()
        with self.stdout.open("wb") as out, self.stderr.open("wb") as err:
            self._child = subprocess.Popen(
                [sys.executable, "-c", CHILD, str(to_child), str(from_child)],
                env=cli_env(home),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                pass_fds=(to_child, from_child),
            )
        os.close(to_child)
        os.close(from_child)
        self._answers = os.fdopen(self._replies, "r", encoding="utf-8")

    def run(self, *args: str, cwd: Path, env: dict[str, str] | None = None) -> list[str]:
        """Run `mini-letta ARGS` in `cwd` (exit 0 expected); the modules it loaded first."""
        step = {"args": list(args), "cwd": str(cwd), "env": env or {}}
        os.write(self._requests, (json.dumps(step) + "\n").encode())
        ready, _, _ = select.select([self._replies], [], [], TIMEOUT)
        line = self._answers.readline() if ready else ""
        errors = self.stderr.read_text(encoding="utf-8", errors="replace")
        assert line, f"no answer to {list(args)} (exit {self._child.poll()}): {errors}"
        assert "Traceback" not in errors, errors
        answer = json.loads(line)
        assert answer["code"] == 0, (args, errors)
        new: list[str] = answer["new"]
        self.loaded.update(new)
        return new

    def __enter__(self) -> ImportProbe:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        os.close(self._requests)  # the child's loop ends
        try:
            self._child.wait(timeout=TIMEOUT)
        finally:
            if self._child.poll() is None:
                self._child.kill()
                self._child.wait()
            self._answers.close()
