"""Automatic memory sync (`memorySync: after-merge`): a detached `memory sync` when memory moved.

After each turn the session compares memory's HEAD with the one it last saw (a read of
`.git/HEAD`, no git process); a memory-tool edit or a merged reflection moves it, and a detached
worker then syncs, so a slow or unreachable remote never holds up a turn. The worker records a
failure in memory-sync.json; the next session reports it once.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import subprocess

    from mini_letta.workspace import World


class SessionSync:
    def __init__(self, world: World, agent_id: str, err: TextIO | None) -> None:
        """`err` None: a worker with no terminal, which leaves a failure for a session to report."""
        from mini_letta.agents.registry import load_agent
        from mini_letta.reflection.settings import load_reflection_settings

        self.world = world
        self.agent_id = agent_id
        settings = load_reflection_settings(world.home, world.cwd, load_agent(world.home, agent_id))
        self.enabled = settings.memory_sync == "after-merge"
        self.head = self._head() if self.enabled else None
        if self.enabled and err is not None:
            _report_failure(world, agent_id, err)

    def after_turn(self) -> subprocess.Popen[bytes] | None:
        """Start a background sync if memory has a new commit since the last look."""
        if not self.enabled:
            return None
        head = self._head()
        if head == self.head:
            return None
        self.head = head
        return spawn_sync_worker(self.world, self.agent_id)

    def _head(self) -> str | None:
        from mini_letta.memory.repo import GitRepo

        return GitRepo(self.world.home.memory_dir(self.agent_id)).head_sha_or_none()


def spawn_sync_worker(world: World, agent_id: str) -> subprocess.Popen[bytes]:
    from mini_letta.cli.background import SYNC_WORKER_FLAG, spawn_detached

    args = [sys.executable, "-m", "mini_letta", "memory", "sync", "--agent", agent_id]
    return spawn_detached(world, [*args, SYNC_WORKER_FLAG])


def _report_failure(world: World, agent_id: str, err: TextIO) -> None:
    from mini_letta.sync.state import take_unreported_error

    error = take_unreported_error(world.home, agent_id, world.clock)
    if error is not None:
        err.write(f"mini-letta: memory sync failed: {error} (retried at the next sync)\n")
        err.flush()
