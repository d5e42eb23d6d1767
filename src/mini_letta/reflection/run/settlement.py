"""What a reflection run leaves behind: each conversation's state and the run record.

`settle_conversation` is the only place a watermark moves: `settle_slices` calls it for every
`unreflected` slice of a run, where a consumed run (`merged`, `no_changes`) advances it to the
end of that slice, never backwards, and resets the failure count (and forgets a refusal told,
reflection/policy/refusal.py), and any other status adds one failure; accepting a rejected run
(reflection/history/decide.py) advances it as a merge would. `replay` slices are never touched.
The record is written `running` at the start and completed at the end.
"""

from __future__ import annotations

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.store import ConversationStore
from mini_letta.reflection.run.agent import SideAgentResult
from mini_letta.reflection.run.finalise import Finalised
from mini_letta.reflection.run.payload import Payload
from mini_letta.reflection.state.outcome import CONSUMING
from mini_letta.reflection.state.records import RunRecord, SliceInfo
from mini_letta.reflection.state.watermark import (
    ReflectionState,
    Watermark,
    advance_watermark,
    count_steps,
    locate_watermark,
    update_reflection_state,
    with_carried_counters,
)
from mini_letta.structs import Struct, replace

# Lines past the new watermark a settlement counts steps on (twice its slice when that is
# more): the counters catch up with a backlog as it is reflected, each settlement reading
# about its slice, and cover a conversation with no backlog to its end.
COUNT_AHEAD = 512


class Slice(Struct, frozen=True):
    """One conversation's part of a run: its state at launch and its payload."""

    store: ConversationStore
    state: ReflectionState
    payload: Payload

    @property
    def unreflected(self) -> bool:
        return self.payload.mode == "unreflected"


class RunFacts(Struct, frozen=True):
    """What the record needs to know about a run that is not in its slices."""

    run_id: str
    agent: AgentRecord
    trigger: str
    instruction: str | None
    merge_mode: str
    parent_head: str
    model: str
    budget: dict[str, int]


def mark_started(slices: list[Slice], clock: Clock) -> None:
    now = format_timestamp(clock.now())
    for piece in slices:
        if piece.unreflected:
            update_reflection_state(
                piece.store, lambda s: replace(s, last_reflection_started_at=now), clock=clock
            )


def settle_slices(
    slices: list[Slice], final: Finalised, clock: Clock
) -> dict[str, ReflectionState]:
    """Advance or count a failure for each unreflected slice; returns the new states."""
    settled: dict[str, ReflectionState] = {}
    for piece in slices:
        if piece.unreflected:
            settled[piece.store.conversation_id] = _settle(piece, final, clock)
    return settled


def _settle(piece: Slice, final: Finalised, clock: Clock) -> ReflectionState:
    payload = piece.payload
    end = payload.end if final.status in CONSUMING else None
    resumed = (payload.start_line, payload.steps)
    return settle_conversation(piece.store, final.status, end, clock, resumed=resumed)


def settle_conversation(
    store: ConversationStore,
    status: str,
    end: Watermark | None,
    clock: Clock,
    *,
    resumed: tuple[int, int] | None = None,
) -> ReflectionState:
    """Record a run's outcome in one conversation's state: with `end`, the watermark moves
    there and the failure count resets; without, one more failure. The reflected steps are
    counted from the log, or added to when `resumed` (the slice's start line and its steps)
    finds the watermark where that slice began."""
    now = format_timestamp(clock.now())
    span = 0 if end is None or resumed is None else end.line + 1 - resumed[0]

    def change(state: ReflectionState) -> ReflectionState:
        current = locate_watermark(store, state)
        if end is not None:
            if resumed and current.line == resumed[0] - 1 and not current.lost:
                reflected = state.reflected_completed_steps + resumed[1]
            else:  # the watermark moved or was lost meanwhile: count instead of adding
                reflected = count_steps(store, 0, end.line + 1)
            state = advance_watermark(
                state, current, end, reflected_steps=reflected, succeeded_at=now
            )
            state = replace(state, consecutive_failures=0, told_refusal=None, refusal_fix=None)
        else:
            state = replace(state, consecutive_failures=state.consecutive_failures + 1)
        state = replace(state, last_reflection_status=status)
        mark = locate_watermark(store, state)
        reach = mark.line + 1 + max(COUNT_AHEAD, 2 * span)
        return with_carried_counters(store, state, mark, reach=reach)

    return update_reflection_state(store, change, clock=clock)


def start_record(facts: RunFacts, slices: list[Slice], started_at: str) -> RunRecord:
    before: dict[str, object] = {}
    for piece in slices:
        if piece.unreflected:
            before.update(_mark(piece.store, locate_watermark(piece.store, piece.state)))
    return RunRecord(
        run_id=facts.run_id,
        agent_id=facts.agent.id,
        trigger=facts.trigger,
        conversation_id=slices[0].store.conversation_id,
        status="running",
        started_at=started_at,
        slices=tuple(_slice_info(piece) for piece in slices),
        instruction=facts.instruction,
        merge_mode=facts.merge_mode,
        parent_head_before=facts.parent_head,
        branch=f"reflection/{facts.run_id}",
        watermark_before=before,
        model=facts.model,
        budget=facts.budget,
    )


def finish_record(
    record: RunRecord,
    final: Finalised,
    states: dict[str, ReflectionState],
    agent_result: SideAgentResult | None,
    finished_at: str,
    duration_ms: int,
) -> RunRecord:
    after: dict[str, object] = {}
    for conversation_id, state in states.items():
        line = state.reflected_through_line
        mark = Watermark(-1 if line is None else line, state.reflected_through_message_id)
        after[conversation_id] = _mark_json(mark)
    usage = agent_result.usage.to_json() if agent_result else {"inputTokens": 0, "outputTokens": 0}
    return record.with_updates(
        status=final.status,
        message=final.message,
        commit_count=final.commit_count,
        merge_commit=final.merge_commit,
        watermark_after=after,
        finished_at=finished_at,
        duration_ms=duration_ms,
        usage=dict(usage),
        steps=agent_result.steps if agent_result else 0,
        error=None if final.status in CONSUMING else final.message,
    )


def interrupted_record(record: RunRecord, finished_at: str) -> RunRecord:
    return record.with_updates(
        status="interrupted",
        message="The run was interrupted before it finished.",
        finished_at=finished_at,
    )


def _slice_info(piece: Slice) -> SliceInfo:
    payload = piece.payload
    return SliceInfo(
        conversation_id=piece.store.conversation_id,
        start_line=payload.start_line,
        slice_end_line=payload.slice_end_line,
        start_message_id=payload.start_message_id,
        end_message_id=payload.end_message_id,
        message_count=len(payload.messages),
        mode=payload.mode,
        truncated=payload.truncated,
        watermark_lost=payload.watermark_lost,
        payload_path=str(payload.path),
        tokens=payload.tokens,
    )


def _mark(store: ConversationStore, mark: Watermark) -> dict[str, object]:
    return {store.conversation_id: _mark_json(mark)}


def _mark_json(mark: Watermark) -> dict[str, object] | None:
    if mark.message_id is None:
        return None
    return {"messageId": mark.message_id, "line": mark.line}
