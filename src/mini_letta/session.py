"""One conversation of an agent, turn after turn: the front door every front end uses.

A `Session` resolves the agent and the conversation once (workspace.py), builds what a turn
runs with (loop/setup.py), runs each turn (loop/turn.py) and then the post-turn work: the
reflection policy (reflection/policy/session.py `AutoReflection`) and automatic memory sync
(`memorySync: after-merge`). Work that runs detached — a background reflection, a memory sync —
is started by the one injected `Spawner`, so the core starts no process itself and each front
end decides how (the CLI's is cli/background.py). Without a spawner all of it runs here, in
this process. Nothing is printed: a turn yields its events, then `AfterTurn`; outcomes that
arrive outside a turn go to the injected sink.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from mini_letta.llm.base import close_provider
from mini_letta.loop.events import TurnEvent, TurnResult
from mini_letta.loop.setup import TurnOptions, TurnSetup, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.reflection.policy.memory_budget import with_memory_budget
from mini_letta.reflection.policy.session import AutoReflection, Mode, SpawnRequest, choose_mode
from mini_letta.settings import Settings, read_settings
from mini_letta.structs import Struct
from mini_letta.workspace import World, resolve_conversation, resolve_or_create_agent

if TYPE_CHECKING:
    from types import TracebackType

    from mini_letta.agents.records import AgentRecord
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.reflection.policy.trigger import PostTurnOutcome
    from mini_letta.reflection.state.outcome import ReflectionOutcome


class SyncRequest(Struct, frozen=True):
    """One memory sync for a detached process to run (it records a failure for later)."""

    agent_id: str


PostTurnJob = SpawnRequest | SyncRequest
Spawner = Callable[[PostTurnJob], int]  # starts the process, returns its pid
ReflectionSink = Callable[["PostTurnOutcome | ReflectionOutcome"], None]


class AfterTurn(Struct, frozen=True):
    """A turn's last item: its result and what the post-turn decision did (None: nothing).

    Reflections queued behind it run, and memory sync starts, when the caller asks for the
    next item, so the caller can show this outcome first."""

    result: TurnResult
    reflection: PostTurnOutcome | None


SessionEvent = TurnEvent | AfterTurn


class Session:
    """An agent's conversation, opened once; `turn` runs one user message after another.

    `agent` is an id or name (None: this project's agent, created if there is none);
    `conversation` an id (None: the agent's current one here; `new` starts one).
    `reflection` None lets settings.json's `reflectionMode` choose foreground or background.
    """

    def __init__(
        self,
        world: World,
        *,
        agent: str | None = None,
        conversation: str | None = None,
        new: bool = False,
        options: TurnOptions | None = None,
        reflection: Mode | None = None,
        spawn: Spawner | None = None,
        on_reflection: ReflectionSink | None = None,
    ) -> None:
        self.world = world
        self.options = options or TurnOptions()
        # once, for everything decided at open
        files = read_settings(world.home, world.project_dir)
        self.agent: AgentRecord = resolve_or_create_agent(
            world, agent, files, model=self.options.model
        )
        self.store: ConversationStore = resolve_conversation(
            world, self.agent, conversation, new=new, settings=files
        )
        setup = build_turn_setup(world, self.agent, self.store, self.options, files)
        self.setup: TurnSetup = with_memory_budget(world, self.agent, setup)
        try:
            mode: Mode = "foreground"
            if spawn is not None:
                mode = reflection or choose_mode(world, files=files)
            self._sink = on_reflection
            self.reflection = AutoReflection(
                world, self.agent.id, self.store, sink=self._deliver, mode=mode, spawn=spawn
            )
            self.sync = AutoSync(world, self.agent, spawn, files)
        except BaseException:  # a session that never opened still releases its model client
            self.close()
            raise

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the model's connections (the SDK clients keep a pool)."""
        close_provider(self.setup.provider)

    def deliver_waiting(self) -> str | None:
        """Give the sink, once, the reflection outcomes no one saw (detached and queued runs),
        oldest first; returns a failed background memory sync no one was told of."""
        self.reflection.deliver_waiting()
        return self.sync.take_failure()

    def turn(self, text: str) -> Iterator[SessionEvent]:
        """Run one turn: its events, its `TurnResult`, then `AfterTurn`. Read it to the end:
        queued reflections and memory sync run after `AfterTurn` has been taken."""
        result: TurnResult | None = None
        for event in run_turn(self.setup, text):
            if isinstance(event, TurnResult):
                result = event
            yield event
        assert result is not None, "run_turn always ends with a TurnResult"
        with self.reflection.after_turn(result.stop_reason) as outcome:
            yield AfterTurn(result, outcome)
        self.sync.after_turn()

    def run(self, text: str) -> TurnResult:
        """One whole turn, post-turn work included; its result (`error` stop on failure)."""
        result: TurnResult | None = None
        for event in self.turn(text):
            if isinstance(event, AfterTurn):
                result = event.result
        assert result is not None
        return result

    def memory(self, path: str) -> str:
        """One of the agent's memory files as it is now (`system/human.md`)."""
        from mini_letta.memory.history import show_memory_file

        return show_memory_file(self.world.home.memory_dir(self.agent.id), path)

    def _deliver(self, outcome: PostTurnOutcome | ReflectionOutcome) -> None:
        if self._sink is not None:
            self._sink(outcome)


class AutoSync:
    """`memorySync: after-merge`: sync memory when a turn (or a merge) moved its HEAD.

    HEAD is read from `.git/HEAD` (no git process); the sync runs detached through `spawn`, so
    a slow or unreachable remote never holds up a turn, or here when there is no spawner. A
    failure is recorded in memory-sync.json; `take_failure` reports it once.
    """

    def __init__(
        self,
        world: World,
        agent: AgentRecord,
        spawn: Callable[[SyncRequest], int] | None,
        files: Settings | None = None,
    ) -> None:
        from mini_letta.reflection.state.settings import load_reflection_settings

        self.world = world
        self.agent_id = agent.id
        self.spawn = spawn
        settings = load_reflection_settings(world.home, world.project_dir, agent, files)
        self.enabled = settings.memory_sync == "after-merge"
        self.head = self._head() if self.enabled else None

    def take_failure(self) -> str | None:
        """The last failed sync's error, once (None: none, or syncing is off)."""
        if not self.enabled:
            return None
        from mini_letta.sync.state import take_unreported_error

        return take_unreported_error(self.world.home, self.agent_id, self.world.clock)

    def after_turn(self) -> int | None:
        """Start a sync if memory has a new commit since the last look; the worker's pid
        (None: nothing to sync; this process's pid when it synced here)."""
        if not self.enabled:
            return None
        head = self._head()
        if head == self.head:
            return None
        self.head = head
        if self.spawn is not None:
            return self.spawn(SyncRequest(self.agent_id))
        return self._sync_here()

    def _sync_here(self) -> int:
        import os
        from contextlib import suppress

        from mini_letta.sync.engine import SyncError, sync_memory

        world = self.world
        with suppress(SyncError):  # recorded in memory-sync.json; `take_failure` reports it
            sync_memory(world.home, self.agent_id, world.clock, world.environ)
        return os.getpid()

    def _head(self) -> str | None:
        from mini_letta.memory.repo import GitRepo

        return GitRepo(self.world.home.memory_dir(self.agent_id)).head_sha_or_none()
