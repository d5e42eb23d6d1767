"""A chat session's reflection after each turn: run it here, detach it, or watch it.

`foreground` (the default of `chat -p`): the triggered reflection runs in this process after
the answer is printed, and one `☾ reflection` line follows on stderr (a stream-json
`reflection` event). `background` (`--background-reflection`, settings.json `reflectionMode`):
a detached worker runs it, and the next command shows its outcome. `watched` (the interactive
session): a worker too, whose line the session prints when it finishes. Outcomes that waited in
the outbox are shown when a session starts. A failing reflection never fails the turn.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable
from typing import Any, Literal

from mini_letta.agents.registry import load_agent
from mini_letta.cli.reflection_view import render_outcome_line
from mini_letta.cli.render import Renderer
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import MiniLettaError
from mini_letta.loop.events import TurnResult
from mini_letta.reflection.outbox import take_outcomes
from mini_letta.reflection.outcome import AutoTrigger, Queued, ReflectionOutcome
from mini_letta.reflection.settings import load_reflection_mode
from mini_letta.reflection.trigger import (
    BackgroundLaunch,
    PostTurnOutcome,
    maybe_reflect_after_turn,
    should_report,
)
from mini_letta.workspace import World

_log = logging.getLogger("mini_letta")

Mode = Literal["foreground", "background", "watched"]
Watch = Callable[[subprocess.Popen[bytes]], None]


class SessionReflection:
    def __init__(
        self,
        world: World,
        agent_id: str,
        store: ConversationStore,
        renderer: Renderer,
        background: bool = False,
        *,
        watch: Watch | None = None,
    ) -> None:
        self.world = world
        self.agent_id = agent_id
        self.store = store
        self.renderer = renderer
        self.watch = watch
        self.mode: Mode = "foreground"
        if watch is not None:
            self.mode = "watched"
        elif background or load_reflection_mode(world.home) == "background":
            self.mode = "background"
        self._ran_here = False

    def show_waiting(self) -> None:
        """Show, once, the outcomes that no terminal saw (background and queued runs)."""
        for outcome in take_outcomes(self.world.home, self.agent_id, self.world.clock):
            self._notice(outcome)

    def after_turn(self, result: TurnResult) -> dict[str, Any] | None:
        """Decide and launch after `result`; the outcome as JSON (None: nothing launched)."""
        self._ran_here = False
        try:
            agent = load_agent(self.world.home, self.agent_id)  # settings may have changed
            outcome = maybe_reflect_after_turn(
                self.world,
                agent,
                self.store,
                platform=sys.platform,
                stop_reason=result.stop_reason,
                launch=None if self.mode == "foreground" else self._detach,
            )
        except MiniLettaError as exc:
            _log.warning("automatic reflection: %s", exc)
            return None
        if outcome is None:
            return None
        self._ran_here = isinstance(outcome, ReflectionOutcome | Queued)
        if self.mode != "watched" and should_report(outcome):
            self._notice(outcome)
        return outcome.to_json()

    def after_result(self) -> None:
        """Run what was queued behind a reflection this process just ran (or queued)."""
        if not self._ran_here:
            return
        self._ran_here = False
        from mini_letta.reflection.launcher import drain_queued_launches

        try:
            agent = load_agent(self.world.home, self.agent_id)
            drain_queued_launches(self.world, agent)
        except MiniLettaError as exc:
            _log.warning("queued reflection: %s", exc)

    def _detach(self, trigger: AutoTrigger) -> PostTurnOutcome:
        from mini_letta.cli.background import spawn_reflection_worker

        proc = spawn_reflection_worker(
            self.world, self.agent_id, self.store.conversation_id, trigger
        )
        if self.watch is not None:
            self.watch(proc)
        return BackgroundLaunch(trigger, self.store.conversation_id, proc.pid)

    def _notice(self, outcome: ReflectionOutcome | PostTurnOutcome) -> None:
        self.renderer.notice("reflection", render_outcome_line(outcome), outcome.to_json())
