"""Turn loops in real child processes, killed at a chosen point, for the crash tests.

One Python process (a `Forker`) imports a turn's modules once and forks each loop on request:
a loop runs `main(["chat", ...])` `count` times and says `ACK <text>` after each turn that
returned. `kill_after` lets a loop finish `acks` turns, waits a short random moment (so the kill
lands anywhere in the next turn: the model call, the appends, a compaction) and SIGKILLs it.
Counting turns instead of sleeping makes a round do the same work on a fast or a loaded machine.
Each loop is still its own process, killed for real; forking it saves a start-up and the
imports (about 0.1 s of CPU a loop).
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path
from types import TracebackType

from support.cli import cli_env
from support.forker import Forker


class TurnLoops:
    """`with TurnLoops(home, cwd, tmp) as loops: loops.start("r0", 1000); loops.kill_after(...)`."""

    def __init__(self, home: Path, cwd: Path, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.errors = folder / "turn-loops.err"
        self._forker = Forker(
            "support.forker:turn_loop",
            ["mini_letta.cli.main", "mini_letta.cli.chat_run", "mini_letta.llm.mock"],
            cli_env(home),
            cwd=cwd,
            errors=self.errors,
        )

    def start(self, prefix: str, count: int, *extra: str, text: str = "") -> None:
        """A loop of `count` turns with the messages `<prefix>-<i> <text>`."""
        self._forker.start(prefix, {"count": count, "text": text, "extra": list(extra)})

    def kill_after(self, prefix: str, acks: int, rng: random.Random) -> list[str]:
        """SIGKILL the loop a moment (< 0.1 s) after its `acks`-th turn; the turns it
        acknowledged."""
        while len(self.acknowledged(prefix)) < acks:
            self._forker.read()
        time.sleep(rng.uniform(0, 0.08))
        os.kill(self._forker.pids[prefix], signal.SIGKILL)  # unreaped until `wait`: still it
        self.wait(prefix)
        return self.acknowledged(prefix)

    def wait(self, prefix: str) -> int:
        """The loop's exit code, once it has ended (a killed loop: -9)."""
        return self._forker.wait(prefix)

    def acknowledged(self, prefix: str) -> list[str]:
        """The turns the loop said it finished (`ACK <prefix>-<i>`), read so far."""
        return [
            turn
            for kind, turn in self._forker.heard
            if kind == "ACK" and turn.rpartition("-")[0] == prefix
        ]

    def __enter__(self) -> TurnLoops:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._forker.close()  # a failed test: no loop outlives it
        if kind is None:
            assert "Traceback" not in self.errors.read_text(), self.errors.read_text()
