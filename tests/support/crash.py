"""Turn loops in real child processes, killed at a chosen point, for the crash tests.

One Python process (`TurnLoops`) imports a turn's modules once and forks each loop on request:
a loop runs `main(["chat", ...])` `count` times and says `ACK <text>` after each turn that
returned. `kill_after` lets a loop finish `acks` turns, waits a short random moment (so the kill
lands anywhere in the next turn: the model call, the appends, a compaction) and SIGKILLs it.
Counting turns instead of sleeping makes a round do the same work on a fast or a loaded machine.
Each loop is still its own process, killed for real; forking it saves a start-up and the
imports (about 0.1 s of CPU a loop).
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

from support.cli import cli_env

# Lines on stdout: `PID prefix pid` when a loop starts, `ACK prefix-i` from the loop after each
# turn (one write each, so loops running side by side never mix a line), `EXIT prefix code`
# once a loop asked for with `wait prefix` has ended and been reaped.
FORKER = """
import json, os, sys
from mini_letta.cli.main import main
import mini_letta.cli.chat_run, mini_letta.llm.mock  # a turn's modules, once for every loop
channel, pids = os.dup(1), {}
for command in sys.stdin:
    verb, _, rest = command.strip().partition(" ")
    if verb == "wait":
        code = os.waitstatus_to_exitcode(os.waitpid(pids.pop(rest), 0)[1])
        os.write(channel, f"EXIT {rest} {code}\\n".encode())
        continue
    prefix, count, text, extra = json.loads(rest)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            quiet = os.open(os.devnull, os.O_RDWR)
            os.dup2(quiet, 0)
            os.dup2(quiet, 1)  # the answers; the acknowledgements go to the channel
            for i in range(count):
                if main(["chat", "-p", f"{prefix}-{i} {text}".strip(), *extra]):
                    break
                os.write(channel, f"ACK {prefix}-{i}\\n".encode())
            else:
                code = 0
        finally:
            os._exit(code)
    pids[prefix] = pid
    os.write(channel, f"PID {prefix} {pid}\\n".encode())
"""

TIMEOUT = 60


class TurnLoops:
    """`with TurnLoops(home, cwd, tmp) as loops: loops.start("r0", 1000); loops.kill_after(...)`."""

    def __init__(self, home: Path, cwd: Path, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.errors = folder / "turn-loops.err"
        with self.errors.open("wb") as err:
            self._forker = subprocess.Popen(
                [sys.executable, "-c", FORKER],
                cwd=cwd,
                env=cli_env(home),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        self._pids: dict[str, int] = {}
        self._acks: dict[str, list[str]] = {}
        self._exits: dict[str, int] = {}

    def start(self, prefix: str, count: int, *extra: str, text: str = "") -> None:
        """A loop of `count` turns with the messages `<prefix>-<i> <text>`."""
        self._send(f"start {json.dumps([prefix, count, text, list(extra)])}")
        self._acks[prefix] = []
        while prefix not in self._pids:
            self._read()

    def kill_after(self, prefix: str, acks: int, rng: random.Random) -> list[str]:
        """SIGKILL the loop a moment (< 0.1 s) after its `acks`-th turn; the turns it
        acknowledged."""
        while len(self._acks[prefix]) < acks:
            self._read()
        time.sleep(rng.uniform(0, 0.08))
        os.kill(self._pids[prefix], signal.SIGKILL)  # unreaped until `wait`: still this loop
        self.wait(prefix)
        return self._acks[prefix]

    def wait(self, prefix: str) -> int:
        """The loop's exit code, once it has ended (a killed loop: -9)."""
        self._send(f"wait {prefix}")
        while prefix not in self._exits:
            self._read()
        return self._exits[prefix]

    def acknowledged(self, prefix: str) -> list[str]:
        return self._acks[prefix]

    def _send(self, command: str) -> None:
        assert self._forker.stdin is not None
        self._forker.stdin.write(command + "\n")
        self._forker.stdin.flush()

    def _read(self) -> None:
        assert self._forker.stdout is not None
        ready, _, _ = select.select([self._forker.stdout], [], [], TIMEOUT)
        line = self._forker.stdout.readline() if ready else ""
        assert line, f"the turn loops stopped answering: {self.errors.read_text()}"
        kind, _, rest = line.strip().partition(" ")
        if kind == "ACK":
            self._acks[rest.rpartition("-")[0]].append(rest)
        elif kind == "PID":
            prefix, pid = rest.split()
            self._pids[prefix] = int(pid)
        else:
            prefix, code = rest.split()
            self._exits[prefix] = int(code)

    def __enter__(self) -> TurnLoops:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for prefix, pid in self._pids.items():
            if prefix not in self._exits:  # a failed test: no loop outlives it
                os.kill(pid, signal.SIGKILL)
                self.wait(prefix)
        assert self._forker.stdin is not None
        self._forker.stdin.close()
        try:
            self._forker.wait(timeout=TIMEOUT)
        finally:
            if self._forker.poll() is None:
                self._forker.kill()
                self._forker.wait()
            if self._forker.stdout is not None:
                self._forker.stdout.close()
        if kind is None:
            assert "Traceback" not in self.errors.read_text(), self.errors.read_text()
