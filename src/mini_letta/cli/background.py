"""Detached post-turn work: `python -m mini_letta _reflect-worker ...` or `memory sync
--background`, each in its own session.

`cli_spawner` is the CLI's `Spawner` for a core `Session` (session.py): a reflection or a memory
sync per request; `spawn_reflection_worker` starts one reflection worker (also for `/reflect`).

The worker takes the agent's lease itself, so a background run is single-flight with every other
run; it has no terminal (stdio to /dev/null, its own process group, so Ctrl-C in the parent never
reaches it) and leaves its outcome in the agent's outbox for the next command to show. A
daemon thread reaps it, so a long-lived process (stream-json input, a program calling `main()`)
leaves no zombie behind, and a process that exits first simply stops waiting.

The worker's command line is ours alone (`WorkerArgs`: written here, read here), so it is read
without click: click's import was about 50 ms of the worker's 300 ms of CPU.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from mini_letta.cli import WORKER_COMMAND
from mini_letta.errors import InvalidValueError
from mini_letta.structs import Struct

if TYPE_CHECKING:
    import subprocess

    from mini_letta.reflection.api import RunTrigger
    from mini_letta.session import PostTurnJob, Spawner
    from mini_letta.workspace import World

SYNC_WORKER_FLAG = "--background"  # `memory sync --background`: quiet, for a detached sync
Watch = Callable[["subprocess.Popen[bytes]"], None]


def cli_spawner(world: World, watch: Watch | None = None) -> Spawner:
    """Start a worker per job; `watch` (the interactive session) is given each reflection."""

    def spawn(job: PostTurnJob) -> int:
        from mini_letta.reflection.api import SpawnRequest

        proc = spawn_job(world, job)
        if watch is not None and isinstance(job, SpawnRequest):
            watch(proc)
        return proc.pid

    return spawn


def spawn_job(world: World, job: PostTurnJob) -> subprocess.Popen[bytes]:
    """Start the worker for one post-turn job and return at once."""
    from mini_letta.session import SyncRequest

    if isinstance(job, SyncRequest):
        args = [sys.executable, "-m", "mini_letta", "memory", "sync", "--agent", job.agent_id]
        return spawn_detached(world, [*args, SYNC_WORKER_FLAG])
    return spawn_reflection_worker(
        world, job.agent_id, job.conversation_id, job.trigger, job.instruction
    )


def spawn_reflection_worker(
    world: World,
    agent_id: str,
    conversation_id: str,
    trigger: RunTrigger,
    instruction: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start the worker and return at once; the caller may wait for it or not."""

    job = WorkerArgs(agent_id, conversation_id, trigger, instruction or None)
    return spawn_detached(world, [sys.executable, "-m", "mini_letta", WORKER_COMMAND, *job.words()])


class WorkerArgs(Struct, frozen=True):
    """What one reflection worker runs: `_reflect-worker --agent ID --conversation ID
    --trigger TRIGGER [--instruction TEXT]`."""

    agent_id: str
    conversation_id: str
    trigger: RunTrigger
    instruction: str | None = None

    def words(self) -> list[str]:
        """The command line after the command's name."""
        words = ["--agent", self.agent_id, "--conversation", self.conversation_id]
        words += ["--trigger", self.trigger]
        return words if self.instruction is None else [*words, "--instruction", self.instruction]


_FLAGS = {"--agent": 0, "--conversation": 1, "--trigger": 2, "--instruction": 3}


def read_worker_args(words: list[str]) -> WorkerArgs:
    """`WorkerArgs.words()` read back; anything else is a usage error (exit 2)."""
    from typing import get_args

    from mini_letta.reflection.api import RunTrigger

    triggers: tuple[str, ...] = get_args(RunTrigger)
    values: list[str | None] = [None] * len(_FLAGS)
    if len(words) % 2:
        raise InvalidValueError(f"{WORKER_COMMAND}: each of {', '.join(_FLAGS)} takes a value")
    for flag, value in zip(words[::2], words[1::2], strict=True):
        at = _FLAGS.get(flag)
        if at is None or values[at] is not None:
            raise InvalidValueError(f"{WORKER_COMMAND}: unexpected or repeated {flag!r}")
        values[at] = value
    agent_id, conversation_id, trigger, instruction = values
    if not agent_id or not conversation_id or trigger not in triggers:
        raise InvalidValueError(
            f"{WORKER_COMMAND} needs --agent, --conversation and --trigger ({', '.join(triggers)})"
        )
    return WorkerArgs(agent_id, conversation_id, cast("RunTrigger", trigger), instruction)


def spawn_detached(world: World, args: list[str]) -> subprocess.Popen[bytes]:
    """Start `args` with no terminal, in its own session: it outlives us and ignores Ctrl-C."""
    return start_detached(args, world.environ, world.cwd)


def start_detached(
    args: list[str], environ: Mapping[str, str], cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    """`spawn_detached` for a program that is not ours (a browser): reaped on a side thread
    when it exits, so a long session keeps no zombie behind. OSError when it cannot start."""
    import subprocess

    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=dict(environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    threading.Thread(target=proc.wait, daemon=True).start()
    return proc
