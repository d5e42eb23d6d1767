"""A reflection launch, its steps in order: `launch_reflection` is the one entry point.

The steps (drawn in docs/architecture.md, "A reflection run"):

lease → memory repo on main → stale leftovers cleaned → parent dirty? skip → payload(s)? else
skip → worktree → reflection agent → finalise → worktree removed (always) → states
and record settled (`settlement`) → lease released. This module takes the launch as far as the
slices; `execute.py` runs them. Manual runs and post-turn runs differ only in
`LaunchOptions.trigger`; `launch_multi_reflection` is the same run over several conversations,
with a manifest and `replay` slices for conversations with nothing new. A slice too long for
one run is reflected in chunks, each a run of its own. User-caused failures inside the run
become a `failed` outcome; an interrupt cleans up, records `interrupted` and propagates.
With `LaunchOptions.hooks` the user's PreReflect and PostReflect hooks run once around the
whole launch, its chunks included (hooked.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mini_letta.agents.records import AgentRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.ids import new_run_id
from mini_letta.llm.base import close_provider
from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.reflection.run.budget import TRANSCRIPT_WRAPPER_TOKENS
from mini_letta.reflection.run.execute import execute_run
from mini_letta.reflection.run.hooked import hooked_launch
from mini_letta.reflection.run.payload import (
    MIN_MAX_TOKENS,
    Payload,
    build_payload,
    build_replay_payload,
    clear_payloads,
    has_unreflected,
)
from mini_letta.reflection.run.settlement import Slice
from mini_letta.reflection.run.setup import (
    LaunchOptions,
    RunSetup,
    memory_compiler,
    reflection_provider,
    run_budget,
    side_agent_provider,
)
from mini_letta.reflection.run.worktree import check_memory_repo, clean_stale_worktrees
from mini_letta.reflection.state.lease import LeaseBusyError, acquire_lease
from mini_letta.reflection.state.outcome import (
    CONSUMING,
    ReflectionOutcome,
    SkipReason,
    skip_message,
)
from mini_letta.reflection.state.records import load_run_record, mark_interrupted
from mini_letta.reflection.state.settings import load_reflection_settings
from mini_letta.reflection.state.upkeep import tidy_after_run
from mini_letta.reflection.state.watermark import backlog_messages, read_reflection_state
from mini_letta.structs import Struct, replace
from mini_letta.workspace import World


class _Launch(Struct, frozen=True):
    """One launch's fixed inputs, shared by its chunks and by a run redone after a conflict."""

    world: World
    agent: AgentRecord
    stores: list[ConversationStore]
    options: LaunchOptions
    bounds: Mapping[str, int]  # each conversation's launch line: its chunks all end there
    multi: bool  # several conversations: a manifest, and replays of those with nothing new


def launch_reflection(
    world: World, agent: AgentRecord, store: ConversationStore, options: LaunchOptions
) -> ReflectionOutcome:
    """Run a reflection on `store` now, or say why it was skipped.

    A slice bigger than the model can take is reflected in ordered chunks, never cut: each
    chunk is a run of its own (its commit, its record), the watermark moves after each chunk
    that succeeds, and the first chunk that does not stops the launch, so the rest waits for
    the next one. All chunks end at the same launch line. The outcome is the last chunk's.
    """
    line = store.count() if options.launch_line is None else options.launch_line
    bounds = {store.conversation_id: line}
    return _hooked(_Launch(world, agent, [store], options, bounds, multi=False))


def launch_multi_reflection(
    world: World,
    agent: AgentRecord,
    stores: Sequence[ConversationStore],
    options: LaunchOptions,
) -> ReflectionOutcome:
    """One run over several conversations: unreflected slices where there is new
    content, replay slices where there is not; only the unreflected watermarks move. A
    conversation too long for one run goes on in further chunks, as in `launch_reflection`,
    each conversation bounded by its log's end at launch."""
    if not stores:
        raise ValueError("launch_multi_reflection needs at least one conversation")
    bounds = {store.conversation_id: store.count() for store in stores}
    return _hooked(_Launch(world, agent, list(stores), options, bounds, multi=True))


def preview_reflection(
    world: World, agent: AgentRecord, store: ConversationStore
) -> Payload | None:
    """What the next run would reflect on (its first chunk), written as a payload file;
    runs nothing."""
    state = read_reflection_state(store, clock=world.clock)
    settings = load_reflection_settings(world.home, world.project_dir, agent)
    provider = reflection_provider(world, agent, settings, LaunchOptions())
    close_provider(provider)  # only its window and name are read
    memory = memory_compiler(world, agent).memory_section()
    budget = run_budget(provider, memory, LaunchOptions())
    name = "preview-" + new_run_id(world.clock.now())
    return build_payload(store, state, name=name, clock=world.clock, max_tokens=budget.chunk)


def _hooked(launch: _Launch) -> ReflectionOutcome:
    """The launch, with the options' PreReflect and PostReflect hooks around all its chunks."""
    options = launch.options
    conversations = [store.conversation_id for store in launch.stores]
    return hooked_launch(options.hooks, options.trigger, lambda: _in_chunks(launch), conversations)


def _in_chunks(launch: _Launch) -> ReflectionOutcome:
    outcome = _launch_redone(launch)
    chunks, commits = 1, outcome.commit_count
    while _rest_waits(launch, outcome):
        if chunks >= launch.options.max_chunks:
            return _with_rest_waiting(outcome, launch.stores, chunks, commits)
        outcome = _launch_redone(launch)
        chunks, commits = chunks + 1, commits + outcome.commit_count
    if chunks == 1:
        return outcome
    return replace(
        outcome,
        commit_count=commits,
        message=f"Reflected in {chunks} chunks ({commits} commit(s)); last: {outcome.message}",
    )


def _launch_redone(launch: _Launch) -> ReflectionOutcome:
    """A launch; one whose merge met a newer memory edit (a `remember` while it ran) is run
    again at once on the memory that won: the watermark did not move, so it is the same slice."""
    outcome = _launch(launch)
    if outcome.status != "merge_conflict":
        return outcome
    redone = _launch(launch)
    if not redone.launched:
        return outcome
    return replace(
        redone,
        message=f"Redone on the newer memory after a merge conflict: {redone.message}",
    )


def _with_rest_waiting(
    outcome: ReflectionOutcome, stores: list[ConversationStore], chunks: int, commits: int
) -> ReflectionOutcome:
    """The launch stopped at its bound with more to reflect on: say how much, and how to go on."""
    left = sum(backlog_messages(store) for store in stores)
    done = (
        outcome.message
        if chunks == 1
        else f"Reflected {chunks} chunks ({commits} commit(s)); last: {outcome.message}"
    )
    return replace(
        outcome,
        commit_count=commits,
        message=f"{done} {left} message(s) still wait: `mini-letta reflect --all` reflects them "
        "now, else each reflection after a turn takes the next slice.",
    )


def _rest_waits(launch: _Launch, outcome: ReflectionOutcome) -> bool:
    """The run consumed its slices, but one stopped short of its launch line, or a
    conversation with new messages found no room in it."""
    if outcome.status not in CONSUMING or outcome.run_id is None:
        return False
    record = load_run_record(launch.world.home, launch.agent.id, outcome.run_id)
    pieces = [piece for piece in record.slices if piece.mode == "unreflected"]
    if any(piece.truncated for piece in pieces):
        return True
    served = {piece.conversation_id for piece in pieces}
    return any(
        has_unreflected(store, stop_line=launch.bounds.get(store.conversation_id))
        for store in launch.stores
        if store.conversation_id not in served
    )


def _launch(launch: _Launch) -> ReflectionOutcome:
    world, agent, stores, options = launch.world, launch.agent, launch.stores, launch.options
    run_id = new_run_id(world.clock.now())
    try:
        lease = acquire_lease(world.home, agent.id, run_id, world.clock)
    except LeaseBusyError as exc:
        holder = exc.holder
        return _skip(
            options, "busy", stores, f"run {holder.run_id}, pid {holder.pid} on {holder.host}"
        )
    with lease:
        if lease.reaped is not None:
            mark_interrupted(world.home, agent.id, lease.reaped.run_id, world.clock)
        parent = GitRepo(world.home.memory_dir(agent.id))
        problem = check_memory_repo(parent)
        if problem is not None:
            return _skip(options, "memory_not_ready", stores, problem)
        clean_stale_worktrees(parent, world.home.memory_worktrees_dir(agent.id))
        with lock_memory(parent.path):  # an edit being committed is not a dirty memory
            changes = parent.changed_paths()
        if changes:
            return _skip(options, "parent_dirty", stores, ", ".join(changes[:3]))
        for store in stores:
            clear_payloads(store)
        project = world.project_dir
        settings = options.settings or load_reflection_settings(world.home, project, agent)
        primary = side_agent_provider(world, agent)
        close_provider(primary)  # only its window is read
        provider = reflection_provider(world, agent, settings, options)
        try:
            compiler = memory_compiler(world, agent)
            budget = run_budget(provider, compiler.memory_section(), options)
            slices = _build_slices(launch, run_id, budget.chunk)
            if not slices:
                return _skip(options, "no_payload", stores)
            run = RunSetup(
                world,
                agent,
                stores[0],
                options,
                settings,
                provider,
                parent,
                run_id,
                lease,
                budget,
                compiler,
                primary.context_window,
            )
            outcome = execute_run(run, slices, multi=launch.multi)
            tidy_after_run(world.home, agent.id, settings, parent, world.clock)
            return outcome
        finally:
            if options.provider is None:  # built here: its connections go now, not at exit
                close_provider(provider)


def _build_slices(launch: _Launch, run_id: str, budget: int) -> list[Slice]:
    """One payload per conversation while the budget (tokens) lasts: unreflected slices
    first, in order (the first gets all of it), then, for a multi-conversation launch, replays
    of the conversations with nothing new; each slice ends at its conversation's launch line."""
    clock, stores = launch.world.clock, launch.stores
    served: dict[str, Slice] = {}
    remaining = budget
    for unreflected in (True, False) if launch.multi else (True,):  # new content first
        for store in stores:
            if store.conversation_id in served:
                continue
            if remaining - TRANSCRIPT_WRAPPER_TOKENS < MIN_MAX_TOKENS:
                break
            room = remaining - TRANSCRIPT_WRAPPER_TOKENS  # its tag and notes around it
            state = read_reflection_state(store, clock=clock)
            payload = (
                build_payload(
                    store,
                    state,
                    name=run_id,
                    clock=clock,
                    launch_line=launch.bounds.get(store.conversation_id),
                    max_tokens=room,
                )
                if unreflected
                else build_replay_payload(store, name=run_id, clock=clock, max_tokens=room)
            )
            if payload is not None:
                served[store.conversation_id] = Slice(store, state, payload)
                remaining = room - payload.tokens
    return [served[s.conversation_id] for s in stores if s.conversation_id in served]


def _skip(
    options: LaunchOptions, reason: SkipReason, stores: list[ConversationStore], detail: str = ""
) -> ReflectionOutcome:
    return ReflectionOutcome(
        message=skip_message(reason, detail),
        skip_reason=reason,
        trigger=options.trigger,
        conversation_id=stores[0].conversation_id,
    )
