"""The post-turn decision: reflect after this turn, or not.

Only a turn that ended with `end_turn` counts: after any other turn nothing changes, and a
compaction flag it raised waits for the next turn that does. Then, in order: (1) a pending
`compaction-event.json` flag is consumed — always, whatever the trigger, even when reflection is
off, so switching to compaction-event later never fires for an old compaction; (2) `off`, the
Windows switch, or failure backoff → nothing; `compaction-event` → launch only if the flag was
pending; `step-count` → launch only if the steps since the last success reach the threshold,
counted backwards and stopping there (O(stepCount) at any conversation length). Nothing here
prints: callers get a `Decision`, or the launch's outcome from `maybe_reflect_after_turn`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from mini_letta.agents.records import AgentRecord
from mini_letta.context.compaction_flag import lower_compaction_flag
from mini_letta.conversations.messages import StopReason
from mini_letta.conversations.store import ConversationStore
from mini_letta.reflection.state.settings import (
    ReflectionSettings,
    is_auto_reflection_enabled,
    load_reflection_settings,
)
from mini_letta.structs import Struct
from mini_letta.workspace import World

if TYPE_CHECKING:  # the outcomes are built only when a run is due
    from mini_letta.reflection.state.outcome import AutoTrigger, Queued, ReflectionOutcome

DecisionReason = Literal[
    "launch",
    "not_end_turn",
    "off",
    "auto_disabled",
    "no_compaction",
    "backing_off",
    "below_threshold",
]


class Decision(Struct, frozen=True):
    trigger: AutoTrigger | None  # None: nothing to launch, `reason` says why
    reason: DecisionReason
    compaction_consumed: bool = False


class BackgroundLaunch(Struct, frozen=True):
    """A launch handed to a detached process; its outcome goes to the outbox."""

    trigger: AutoTrigger
    conversation_id: str
    pid: int

    @property
    def message(self) -> str:
        return f"Running in the background (pid {self.pid}); the next command shows its outcome."

    def to_json(self) -> dict[str, Any]:
        from mini_letta.reflection.state.outcome import outcome_json

        kind = {"launched": True, "background": True}
        data = outcome_json(self.message, self.trigger, self.conversation_id, kind=kind)
        return {**data, "pid": self.pid}


if TYPE_CHECKING:
    PostTurnOutcome = ReflectionOutcome | Queued | BackgroundLaunch
    Launcher = Callable[[AutoTrigger], PostTurnOutcome]


def decide_after_turn(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    *,
    platform: str,
    stop_reason: StopReason = "end_turn",
    settings: ReflectionSettings | None = None,
) -> Decision:
    """Consume the compaction flag and decide; launches nothing."""
    if stop_reason != "end_turn":
        return Decision(None, "not_end_turn")
    consumed = lower_compaction_flag(store)
    settings = settings or load_reflection_settings(world.home, world.project_dir, agent)
    if settings.trigger == "off":
        return Decision(None, "off", consumed)
    if not is_auto_reflection_enabled(platform, world.environ):
        return Decision(None, "auto_disabled", consumed)
    if settings.trigger == "compaction-event" and not consumed:
        return Decision(None, "no_compaction", consumed)
    # Imported here: the default case (compaction-event, no flag) never reads the state.
    from mini_letta.reflection.policy.backoff import is_backing_off, is_step_count_due
    from mini_letta.reflection.state.watermark import read_reflection_state

    state = read_reflection_state(store, clock=world.clock)
    if is_backing_off(state, world.clock.now()):
        return Decision(None, "backing_off", consumed)
    if settings.trigger == "step-count" and not is_step_count_due(store, state, settings):
        return Decision(None, "below_threshold", consumed)
    return Decision(settings.trigger, "launch", consumed)


def maybe_reflect_after_turn(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    *,
    platform: str,
    stop_reason: StopReason = "end_turn",
    launch: Launcher | None = None,
    settings: ReflectionSettings | None = None,
) -> PostTurnOutcome | None:
    """Decide, and launch when due: None when nothing was launched.

    `launch` runs the reflection (default: now, in this process, queued if one is running);
    callers that run it here launch inside `launcher.drained_after`.
    """
    decision = decide_after_turn(
        world, agent, store, platform=platform, stop_reason=stop_reason, settings=settings
    )
    if decision.trigger is None:
        return None
    if launch is None:
        from mini_letta.reflection.policy.launcher import launch_automatic  # the run: only when due

        return launch_automatic(world, agent, store, decision.trigger, foreground=True)
    return launch(decision.trigger)
