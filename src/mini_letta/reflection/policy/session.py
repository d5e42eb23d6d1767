"""Automatic reflection in a running program: after each turn, decide, launch, deliver.

`foreground` runs a due reflection in this process once the turn is over. `background` hands it
to a detached process started by the injected `Spawner` (its outcome waits in the outbox for
the next session); `watched` does the same for a program that also watches that process and
shows its outcome itself. Outcomes go to the injected `OutcomeSink`, never to a terminal, so
the CLI renders them and a library caller may log or ignore them. A failing reflection never
fails the turn, but each failed attempt is reported with that turn (the backoff spaces the
attempts out, so this is never a line per turn forever), and the turn's result stands. Nothing
heavy is imported until a reflection is due, so a turn with nothing to reflect on stays cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

from mini_letta import log
from mini_letta.errors import MiniLettaError
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord
    from mini_letta.conversations.messages import StopReason
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.hooks.runner import HookRunner
    from mini_letta.reflection.policy.trigger import PostTurnOutcome
    from mini_letta.reflection.state.outcome import (
        AutoTrigger,
        Queued,
        ReflectionOutcome,
        RunTrigger,
    )
    from mini_letta.settings import Settings
    from mini_letta.workspace import World


Mode = Literal["foreground", "background", "watched"]


class SpawnRequest(Struct, frozen=True):
    """One reflection for a detached process to run (it takes the lease and drains itself)."""

    agent_id: str
    conversation_id: str
    trigger: RunTrigger
    instruction: str | None = None


Spawner = Callable[[SpawnRequest], int]  # starts the process, returns its pid
OutcomeSink = Callable[["PostTurnOutcome | ReflectionOutcome"], None]


def choose_mode(
    world: World,
    *,
    background: bool = False,
    watched: bool = False,
    files: Settings | None = None,
) -> Mode:
    """watched beats background (asked for, or settings.json `reflectionMode`) beats foreground."""
    if watched:
        return "watched"
    if background:
        return "background"
    from mini_letta.reflection.state.settings import load_reflection_mode

    mode = load_reflection_mode(world.home, files)
    return "background" if mode == "background" else "foreground"


class AutoReflection:
    """The post-turn reflection policy for one conversation of a session."""

    def __init__(
        self,
        world: World,
        agent_id: str,
        store: ConversationStore,
        *,
        sink: OutcomeSink,
        mode: Mode = "foreground",
        spawn: Spawner | None = None,
        platform: str = sys.platform,
        hooks: HookRunner | None = None,
        files: Settings | None = None,
    ) -> None:
        if mode != "foreground" and spawn is None:
            raise ValueError(f"{mode} reflection needs a spawner to start the detached process")
        self.world = world
        self.agent_id = agent_id
        self.store = store
        self.sink = sink
        self.mode = mode
        self.spawn = spawn
        self.platform = platform
        self.hooks = hooks  # PreReflect and PostReflect around a run in this process
        self.files = files  # the command's settings files, read once (None: read at each turn)

    def deliver_waiting(self) -> None:
        """Deliver, once, the outcomes no one saw (detached and queued runs), oldest first."""
        from mini_letta.reflection.state.outbox import take_outcomes

        for outcome in take_outcomes(self.world.home, self.agent_id, self.world.clock):
            self.sink(outcome)

    @contextmanager
    def after_turn(self, stop_reason: StopReason) -> Iterator[PostTurnOutcome | None]:
        """Decide and launch; yields the outcome (None: nothing launched) for the caller to
        finish its turn with. If this process ran or queued a reflection, what was queued
        behind it runs when the block ends, after the caller has shown the outcome."""
        outcome = self._launch(stop_reason)
        if outcome is None:
            yield None
            return
        from mini_letta.reflection.state.outcome import Queued, ReflectionOutcome

        if isinstance(outcome, ReflectionOutcome | Queued):
            from mini_letta.reflection.policy.launcher import drained_after

            with drained_after(self.world, self.agent_id):
                yield outcome
        else:
            yield outcome

    def _launch(self, stop_reason: StopReason) -> PostTurnOutcome | None:
        from mini_letta.agents.registry import load_agent
        from mini_letta.reflection.policy.trigger import maybe_reflect_after_turn
        from mini_letta.reflection.state.settings import load_reflection_settings

        world = self.world
        try:
            agent = load_agent(world.home, self.agent_id)  # its settings may have changed
            settings = load_reflection_settings(world.home, world.project_dir, agent, self.files)
            outcome = maybe_reflect_after_turn(
                world,
                agent,
                self.store,
                platform=self.platform,
                stop_reason=stop_reason,
                launch=self._launcher(agent),
                settings=settings,
            )
        except MiniLettaError as exc:
            log.warning("automatic reflection: %s", exc)
            return None
        if outcome is None or self.mode == "watched":
            return outcome
        from mini_letta.reflection.state.outcome import ReflectionOutcome

        if not (isinstance(outcome, ReflectionOutcome) and outcome.told_before):  # told once
            self.sink(outcome)  # every other failed attempt: backoff spaces them
        return outcome

    def _launcher(self, agent: AgentRecord) -> Callable[[AutoTrigger], PostTurnOutcome] | None:
        if self.mode != "foreground":
            return self._detach
        if self.hooks is None:
            return None  # the default: run it here
        hooks = self.hooks

        def hooked(trigger: AutoTrigger) -> PostTurnOutcome:
            from mini_letta.reflection.policy.launcher import launch_automatic
            from mini_letta.reflection.run.hooked import hooked_launch

            def run() -> ReflectionOutcome | Queued:
                return launch_automatic(self.world, agent, self.store, trigger, foreground=True)

            return hooked_launch(hooks, trigger, run)

        return hooked

    def _detach(self, trigger: AutoTrigger) -> PostTurnOutcome:
        from mini_letta.reflection.policy.trigger import BackgroundLaunch

        assert self.spawn is not None  # checked in __init__
        conversation_id = self.store.conversation_id
        pid = self.spawn(SpawnRequest(self.agent_id, conversation_id, trigger))
        return BackgroundLaunch(trigger, conversation_id, pid)
