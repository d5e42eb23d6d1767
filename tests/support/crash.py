"""Turn loops in real child processes, killed at a chosen point, for the crash tests.

A child runs `main(["chat", ...])` in a loop and prints `ACK <text>` on stderr after each turn
that returned; `kill_after` lets it finish `acks` turns, waits a short random moment (so the
kill lands anywhere in the next turn: the model call, the appends, a compaction) and SIGKILLs
it. Counting turns instead of sleeping makes a round do the same work on a fast or a loaded
machine.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.cli import cli_env

TURN_LOOP = """
import sys
from mini_letta.cli.main import main
prefix, count, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
extra = sys.argv[4:]
for i in range(count):
    if main(["chat", "-p", f"{prefix}-{i} {text}".strip(), *extra]):
        sys.exit(1)
    print(f"ACK {prefix}-{i}", file=sys.stderr, flush=True)
"""


def spawn_turn_loop(
    home: Path, cwd: Path, prefix: str, count: int, *extra: str, text: str = ""
) -> subprocess.Popen[str]:
    """A child running `count` turns with the messages `<prefix>-<i> <text>`."""
    return subprocess.Popen(
        [sys.executable, "-c", TURN_LOOP, prefix, str(count), text, *extra],
        cwd=cwd,
        env=cli_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_after(child: subprocess.Popen[str], acks: int, rng: random.Random) -> list[str]:
    """SIGKILL `child` a moment (< 0.1 s) after its `acks`-th turn; the turns it acknowledged."""
    assert child.stderr is not None
    acknowledged: list[str] = []
    while len(acknowledged) < acks:
        line = child.stderr.readline()
        if not line:
            break  # it ended on its own (an error shows in the caller's checks)
        if line.startswith("ACK "):
            acknowledged.append(line.split()[1])
    time.sleep(rng.uniform(0, 0.08))
    child.send_signal(signal.SIGKILL)
    _, rest = child.communicate()
    return acknowledged + [line.split()[1] for line in rest.splitlines() if line.startswith("ACK ")]
