"""Refusals the next run would repeat, told once: the memory gate's rejection, uncommitted
memory changes, a memory that is not ready.

Such a refusal leaves the watermark where it was (nothing is lost: the slice waits), and every
later automatic run would meet it again until the person acts. So the first one is told, with
the command that fixes it (`outcome.refusal_fix`); the same refusal again is not (its post-turn
line and outbox entry are dropped), while `status` shows the fix for as long as it holds. A run
that moves the watermark forgets it (settlement.py), so a later refusal is told again.
"""

from __future__ import annotations

from mini_letta.clock import Clock
from mini_letta.conversations.store import ConversationStore
from mini_letta.reflection.state.outcome import ReflectionOutcome
from mini_letta.reflection.state.watermark import ReflectionState, update_reflection_state
from mini_letta.structs import replace


def note_refusal(
    store: ConversationStore, outcome: ReflectionOutcome, clock: Clock
) -> ReflectionOutcome:
    """Record an automatic launch's refusal in its conversation's state; the outcome comes
    back marked `told_before` when the same refusal was already told."""
    fix = outcome.fix
    if fix is None:
        return outcome
    told = f"{outcome.status or outcome.skip_reason}: {outcome.message}"
    seen: list[bool] = []

    def change(state: ReflectionState) -> ReflectionState:
        seen.append(state.told_refusal == told)
        return replace(state, told_refusal=told, refusal_fix=fix)

    update_reflection_state(store, change, clock=clock)
    return replace(outcome, told_before=seen[0]) if seen[0] else outcome
