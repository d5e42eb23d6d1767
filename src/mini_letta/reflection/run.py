"""A reflection run, SPEC §7.5 steps 1-7 in order: `launch_reflection` is the one entry point.

lease → memory repo on main → stale leftovers cleaned → parent dirty? skip → payload? else skip
→ worktree → reflection agent → finalise → worktree and branch removed (always) → state and
record settled → lease released. Only `merged` and `no_changes` move the watermark, to the end
of the launch snapshot, never backwards; every other status counts a failure. Manual runs and
(next) post-turn runs differ only in `LaunchOptions.trigger`. User-caused failures inside the
run become a `failed` outcome; an interrupt cleans up, records `interrupted` and propagates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import format_timestamp
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import MiniLettaError
from mini_letta.ids import new_run_id
from mini_letta.llm.base import Provider
from mini_letta.loop.setup import TurnOptions, build_agent_provider, build_system_prompt
from mini_letta.memory.compile import render_memory_snapshot
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.agent import (
    DEFAULT_REFLECTION_STEPS,
    RunTranscript,
    SideAgentResult,
    SideAgentSpec,
    run_side_agent,
)
from mini_letta.reflection.finalise import Finalised, Reviewer, finalise_worktree
from mini_letta.reflection.lease import LeaseBusyError, ReflectionLease, acquire_lease
from mini_letta.reflection.outcome import (
    CONSUMING,
    ReflectionOutcome,
    SkipReason,
    skip_message,
    status_message,
)
from mini_letta.reflection.payload import (
    Payload,
    build_payload,
    clear_payloads,
    load_payload,
    payload_budget,
)
from mini_letta.reflection.records import RunRecord, SliceInfo, mark_interrupted, save_run_record
from mini_letta.reflection.review import ReviewSetup, build_reviewer
from mini_letta.reflection.settings import ReflectionSettings, load_reflection_settings
from mini_letta.reflection.task import build_reflection_task, reflection_system_prompt
from mini_letta.reflection.tools import reflection_tools
from mini_letta.reflection.watermark import (
    ReflectionState,
    Watermark,
    advance_watermark,
    count_steps,
    locate_watermark,
    read_reflection_state,
    steps_since_last_reflection,
    update_reflection_state,
    with_step_counters,
)
from mini_letta.reflection.worktree import (
    Worktree,
    check_memory_repo,
    clean_stale_worktrees,
    create_worktree,
    remove_worktree,
)
from mini_letta.tools.base import ToolContext, Toolset
from mini_letta.workspace import World


@dataclass(frozen=True, slots=True)
class LaunchOptions:
    trigger: str = "manual"  # "manual", "step-count" or "compaction-event"
    instruction: str | None = None
    provider: Provider | None = None  # default: the agent's model
    merge_provider: Provider | None = None  # default: the agent's model
    settings: ReflectionSettings | None = None  # default: the layered settings
    max_steps: int = DEFAULT_REFLECTION_STEPS
    max_payload_chars: int | None = None  # default: from the model's context window


@dataclass(frozen=True, slots=True)
class _Run:
    world: World
    agent: AgentRecord
    store: ConversationStore
    options: LaunchOptions
    settings: ReflectionSettings
    provider: Provider
    parent: GitRepo
    run_id: str
    lease: ReflectionLease


def launch_reflection(
    world: World, agent: AgentRecord, store: ConversationStore, options: LaunchOptions
) -> ReflectionOutcome:
    """Run one reflection on `store` now, or say why it was skipped."""
    run_id = new_run_id(world.clock.now())
    try:
        lease = acquire_lease(world.home, agent.id, run_id, world.clock)
    except LeaseBusyError as exc:
        holder = exc.holder
        return _skip("busy", store, f"run {holder.run_id}, pid {holder.pid} on {holder.host}")
    with lease:
        if lease.reaped is not None:
            mark_interrupted(world.home, agent.id, lease.reaped.run_id, world.clock)
        parent = GitRepo(world.home.memory_dir(agent.id))
        problem = check_memory_repo(parent)
        if problem is not None:
            return _skip("memory_not_ready", store, problem)
        clean_stale_worktrees(parent, world.home.memory_worktrees_dir(agent.id))
        changes = parent.changed_paths()
        if changes:
            return _skip("parent_dirty", store, ", ".join(changes[:3]))
        clear_payloads(store)
        settings = options.settings or load_reflection_settings(world.home, world.cwd, agent)
        provider = options.provider or build_agent_provider(world, agent, TurnOptions())
        run = _Run(world, agent, store, options, settings, provider, parent, run_id, lease)
        state = read_reflection_state(store, clock=world.clock)
        budget = options.max_payload_chars or payload_budget(provider.context_window)
        payload = build_payload(store, state, name=run_id, clock=world.clock, max_chars=budget)
        if payload is None:
            return _skip("no_payload", store)
        return _run(run, state, payload)


def preview_reflection(
    world: World, agent: AgentRecord, store: ConversationStore, max_chars: int | None = None
) -> Payload | None:
    """What the next run would reflect on, written as a payload file; runs nothing."""
    state = read_reflection_state(store, clock=world.clock)
    if max_chars is None:
        provider = build_agent_provider(world, agent, TurnOptions())
        max_chars = payload_budget(provider.context_window)
    name = "preview-" + new_run_id(world.clock.now())
    return build_payload(store, state, name=name, clock=world.clock, max_chars=max_chars)


def _run(run: _Run, state: ReflectionState, payload: Payload) -> ReflectionOutcome:
    clock = run.world.clock
    started = clock.monotonic()
    record = _start_record(run, state, payload)
    save_run_record(run.world.home, record)
    now = format_timestamp(clock.now())
    update_reflection_state(
        run.store, lambda s: replace(s, last_reflection_started_at=now), clock=clock
    )
    worktree: Worktree | None = None
    agent_result: SideAgentResult | None = None
    try:
        worktree = create_worktree(
            run.parent, run.world.home.memory_worktrees_dir(run.agent.id), run.run_id
        )
        agent_result = _run_agent(run, worktree, payload)
        final = finalise_worktree(
            run.parent,
            worktree,
            agent_error=agent_result.error,
            merge=run.settings.merge,
            review=_reviewer(run) if run.settings.merge == "explicit" else None,
        )
    except MiniLettaError as exc:
        final = Finalised("failed", status_message("failed", detail=str(exc)))
    except BaseException:
        save_run_record(run.world.home, _interrupted(record, run))
        raise
    finally:
        if worktree is not None:
            remove_worktree(run.parent, worktree)
    settled = _settle_state(run, payload, final)
    duration = int((clock.monotonic() - started) * 1000)
    record = _finish_record(record, run, final, settled, agent_result, duration)
    path = save_run_record(run.world.home, record)
    return ReflectionOutcome(
        message=final.message,
        status=final.status,
        run_id=run.run_id,
        trigger=run.options.trigger,
        conversation_id=run.store.conversation_id,
        commit_count=final.commit_count,
        merge_commit=final.merge_commit,
        payload_path=str(payload.path),
        record_path=str(path),
        consecutive_failures=settled.consecutive_failures,
    )


def _run_agent(run: _Run, worktree: Worktree, payload: Payload) -> SideAgentResult:
    data = load_payload(payload.path)
    task = build_reflection_task(
        data, render_memory_snapshot(worktree.path), run.options.instruction
    )
    context = ToolContext(
        cwd=worktree.path,
        clock=run.world.clock,
        agent_id=run.agent.id,
        memory_dir=worktree.path,
    )
    spec = SideAgentSpec(
        purpose="reflection",
        agent=run.agent,
        provider=run.provider,
        toolset=Toolset(reflection_tools()),
        tool_context=context,
        system_prompt=reflection_system_prompt(),
        max_steps=run.options.max_steps,
    )
    transcript = RunTranscript(run.world.home, run.agent.id, run.run_id)
    return run_side_agent(
        spec, transcript, task, run.world.clock, on_step=lambda: run.lease.renew(run.world.clock)
    )


def _reviewer(run: _Run) -> Reviewer:
    provider = run.options.merge_provider or build_agent_provider(
        run.world, run.agent, TurnOptions()
    )
    setup = ReviewSetup(
        home=run.world.home,
        agent=run.agent,
        provider=provider,
        clock=run.world.clock,
        run_id=run.run_id,
        merge_instructions=run.settings.merge_instructions,
        system_prompt=build_system_prompt(run.agent, run.store)(),
    )
    return build_reviewer(setup, run.parent)


def _settle_state(run: _Run, payload: Payload, final: Finalised) -> ReflectionState:
    """Advance (consumed) or count a failure, and refresh the step counters, under the lock."""
    store = run.store
    now = format_timestamp(run.world.clock.now())

    def change(state: ReflectionState) -> ReflectionState:
        if final.status in CONSUMING:
            current = locate_watermark(store, state)
            if current.line == payload.start_line - 1 and not current.lost:
                reflected = state.reflected_completed_steps + payload.steps
            else:
                reflected = count_steps(store, 0, payload.end.line + 1)
            state = advance_watermark(
                state, current, payload.end, reflected_steps=reflected, succeeded_at=now
            )
            state = replace(state, consecutive_failures=0)
        else:
            state = replace(state, consecutive_failures=state.consecutive_failures + 1)
        state = replace(state, last_reflection_status=final.status)
        return with_step_counters(state, steps_since_last_reflection(store, state))

    return update_reflection_state(store, change, clock=run.world.clock)


def _start_record(run: _Run, state: ReflectionState, payload: Payload) -> RunRecord:
    before = locate_watermark(run.store, state)
    slice_info = SliceInfo(
        conversation_id=run.store.conversation_id,
        start_line=payload.start_line,
        end_snapshot_line=payload.end_snapshot_line,
        start_message_id=payload.start_message_id,
        end_message_id=payload.end_message_id,
        message_count=len(payload.messages),
        truncated=payload.truncated,
        watermark_lost=payload.watermark_lost,
        payload_path=str(payload.path),
    )
    return RunRecord(
        run_id=run.run_id,
        agent_id=run.agent.id,
        trigger=run.options.trigger,
        conversation_id=run.store.conversation_id,
        status="running",
        started_at=format_timestamp(run.world.clock.now()),
        slices=(slice_info,),
        instruction=run.options.instruction,
        merge_mode=run.settings.merge,
        parent_head_before=run.parent.head_sha(),
        branch=f"reflection/{run.run_id}",
        watermark_before=_marks(run.store.conversation_id, before),
        model=run.provider.handle,
    )


def _finish_record(
    record: RunRecord,
    run: _Run,
    final: Finalised,
    state: ReflectionState,
    agent_result: SideAgentResult | None,
    duration_ms: int,
) -> RunRecord:
    line = state.reflected_through_line
    after = Watermark(-1 if line is None else line, state.reflected_through_message_id)
    usage = agent_result.usage.to_json() if agent_result else {"inputTokens": 0, "outputTokens": 0}
    return record.with_updates(
        status=final.status,
        message=final.message,
        commit_count=final.commit_count,
        merge_commit=final.merge_commit,
        watermark_after=_marks(run.store.conversation_id, after),
        finished_at=format_timestamp(run.world.clock.now()),
        duration_ms=duration_ms,
        usage=dict(usage),
        steps=agent_result.steps if agent_result else 0,
        error=None if final.status in CONSUMING else final.message,
    )


def _interrupted(record: RunRecord, run: _Run) -> RunRecord:
    return record.with_updates(
        status="interrupted",
        message="The run was interrupted before it finished.",
        finished_at=format_timestamp(run.world.clock.now()),
    )


def _marks(conversation_id: str, mark: Watermark) -> dict[str, object] | None:
    if mark.message_id is None:
        return {conversation_id: None}
    return {conversation_id: {"messageId": mark.message_id, "line": mark.line}}


def _skip(reason: SkipReason, store: ConversationStore, detail: str = "") -> ReflectionOutcome:
    return ReflectionOutcome(
        message=skip_message(reason, detail),
        skip_reason=reason,
        conversation_id=store.conversation_id,
    )
