"""A reflection run, its steps in order: `launch_reflection` is the one entry point.

The steps (drawn in docs/architecture.md, "A reflection run"):

lease → memory repo on main → stale leftovers cleaned → parent dirty? skip → payload(s)? else
skip → worktree → reflection agent → finalise → worktree and branch removed (always) → states
and record settled (`settlement`) → lease released. Manual runs and post-turn runs differ
only in `LaunchOptions.trigger`; `launch_multi_reflection` is the same run over several
conversations, with a manifest and `replay` slices for conversations with nothing new.
User-caused failures inside the run become a `failed` outcome; an interrupt cleans up, records
`interrupted` and propagates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import format_timestamp
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import MiniLettaError, ReflectionError
from mini_letta.ids import new_run_id
from mini_letta.llm.base import Provider, close_provider
from mini_letta.loop.setup import TurnOptions, build_agent_provider, build_system_prompt
from mini_letta.memory.compile import PromptCompiler
from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.reflection.gate.budget_notice import SMALL_WINDOW
from mini_letta.reflection.gate.check import GateInput, GateLimits
from mini_letta.reflection.gate.hunk_review import ReviewOutcome, collect_hunks, review_hunks
from mini_letta.reflection.run.agent import (
    DEFAULT_REFLECTION_STEPS,
    RunTranscript,
    SideAgentResult,
    SideAgentSpec,
    run_side_agent,
)
from mini_letta.reflection.run.budget import (
    TRANSCRIPT_WRAPPER_TOKENS,
    ReflectionBudget,
    reflection_budget,
)
from mini_letta.reflection.run.finalise import (
    Finalised,
    Reviewer,
    ReviewReport,
    SecondLook,
    finalise_worktree,
)
from mini_letta.reflection.run.payload import (
    MIN_MAX_TOKENS,
    Payload,
    build_payload,
    build_replay_payload,
    clear_payloads,
    has_unreflected,
    load_payload,
    save_manifest,
)
from mini_letta.reflection.run.review import ReviewSetup, build_reviewer
from mini_letta.reflection.run.settlement import (
    RunFacts,
    Slice,
    finish_record,
    interrupted_record,
    mark_started,
    settle_slices,
    start_record,
)
from mini_letta.reflection.run.task import build_reflection_task, reflection_system_prompt
from mini_letta.reflection.run.tools import RunProvenance, reflection_tools
from mini_letta.reflection.run.worktree import (
    Worktree,
    check_memory_repo,
    clean_stale_worktrees,
    create_worktree,
    remove_worktree,
)
from mini_letta.reflection.state.lease import LeaseBusyError, ReflectionLease, acquire_lease
from mini_letta.reflection.state.outcome import (
    CONSUMING,
    ReflectionOutcome,
    RunTrigger,
    SkipReason,
    skip_message,
    status_message,
)
from mini_letta.reflection.state.records import load_run_record, mark_interrupted, save_run_record
from mini_letta.reflection.state.settings import ReflectionSettings, load_reflection_settings
from mini_letta.reflection.state.upkeep import files_over_budget, tidy_after_run
from mini_letta.reflection.state.watermark import backlog_messages, read_reflection_state
from mini_letta.skills.prompt import render_memory_skill_list
from mini_letta.structs import Struct, replace
from mini_letta.tools.base import ToolContext, Toolset
from mini_letta.workspace import World

MIN_SIDE_WINDOW = SMALL_WINDOW  # a local server's real limit is usually at least this
MAX_CHUNKS = 100  # a bound on one launch, not a cut: what remains waits for the next launch
REJECTED_PREFIX = "reflection-rejected/"


class LaunchOptions(Struct, frozen=True):
    trigger: RunTrigger = "manual"
    instruction: str | None = None
    provider: Provider | None = None  # default: the agent's model
    merge_provider: Provider | None = None  # default: the agent's model
    settings: ReflectionSettings | None = None  # default: the layered settings
    max_steps: int = DEFAULT_REFLECTION_STEPS
    chunk_tokens: int | None = None  # a smaller chunk than the model's window allows (tests)
    launch_line: int | None = None  # default: the log's end now (the chunks of a launch share it)
    model: str | None = None  # `reflect --model`: this run's reflection model
    base_url: str | None = None
    review_provider: Provider | None = None  # default: the settings' reviewModel, if any
    max_chunks: int = MAX_CHUNKS  # 1 after a turn in the foreground: the turn is not held


class _Run(Struct, frozen=True):
    world: World
    agent: AgentRecord
    store: ConversationStore  # the first conversation: the outcome's and the review's
    options: LaunchOptions
    settings: ReflectionSettings
    provider: Provider
    parent: GitRepo
    run_id: str
    lease: ReflectionLease
    budget: ReflectionBudget
    compiler: PromptCompiler  # the memory section by commit, cached on disk like the chat's
    primary_window: int  # the agent's model window: the memory gate's budgets are shares of it


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
    return _in_chunks(world, agent, [store], options, {store.conversation_id: line}, multi=False)


def _in_chunks(
    world: World,
    agent: AgentRecord,
    stores: list[ConversationStore],
    options: LaunchOptions,
    bounds: Mapping[str, int],
    *,
    multi: bool,
) -> ReflectionOutcome:
    outcome = _launch_redone(world, agent, stores, options, bounds, multi=multi)
    chunks, commits = 1, outcome.commit_count
    while _rest_waits(world, agent, outcome, stores, bounds):
        if chunks >= options.max_chunks:
            return _with_rest_waiting(outcome, stores, chunks, commits)
        outcome = _launch_redone(world, agent, stores, options, bounds, multi=multi)
        chunks, commits = chunks + 1, commits + outcome.commit_count
    if chunks == 1:
        return outcome
    return replace(
        outcome,
        commit_count=commits,
        message=f"Reflected in {chunks} chunks ({commits} commit(s)); last: {outcome.message}",
    )


def _launch_redone(
    world: World,
    agent: AgentRecord,
    stores: list[ConversationStore],
    options: LaunchOptions,
    bounds: Mapping[str, int],
    *,
    multi: bool,
) -> ReflectionOutcome:
    """A launch; one whose merge met a newer memory edit (a `remember` while it ran) is run
    again at once on the memory that won: the watermark did not move, so it is the same slice."""
    outcome = _launch(world, agent, stores, options, bounds, multi=multi)
    if outcome.status != "merge_conflict":
        return outcome
    redone = _launch(world, agent, stores, options, bounds, multi=multi)
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


def _rest_waits(
    world: World,
    agent: AgentRecord,
    outcome: ReflectionOutcome,
    stores: list[ConversationStore],
    bounds: Mapping[str, int],
) -> bool:
    """The run consumed its slices, but one stopped short of its launch line, or a
    conversation with new messages found no room in it."""
    if outcome.status not in CONSUMING or outcome.run_id is None:
        return False
    record = load_run_record(world.home, agent.id, outcome.run_id)
    pieces = [piece for piece in record.slices if piece.mode == "unreflected"]
    if any(piece.truncated for piece in pieces):
        return True
    served = {piece.conversation_id for piece in pieces}
    return any(
        has_unreflected(store, stop_line=bounds.get(store.conversation_id))
        for store in stores
        if store.conversation_id not in served
    )


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
    return _in_chunks(world, agent, list(stores), options, bounds, multi=True)


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


def run_budget(provider: Provider, memory: str, options: LaunchOptions) -> ReflectionBudget:
    """The run's transcript budget from its model's window and the memory section it starts
    from; `chunk_tokens` only lowers it."""
    budget = reflection_budget(
        provider.context_window,
        system_prompt=reflection_system_prompt(),
        tools=[tool.spec for tool in reflection_tools(RunProvenance())],
        memory=memory,
        instruction=options.instruction,
        model=provider.handle,
    )
    if options.chunk_tokens is not None and options.chunk_tokens < budget.chunk:
        budget = replace(budget, chunk=max(MIN_MAX_TOKENS, options.chunk_tokens))
    return budget


def memory_compiler(world: World, agent: AgentRecord) -> PromptCompiler:
    return PromptCompiler(world.home.memory_dir(agent.id), world.home.prompt_cache_file(agent.id))


def side_agent_provider(
    world: World, agent: AgentRecord, model: str | None = None, base_url: str | None = None
) -> Provider:
    """The model for the agent's reflection (`model`, default the agent's) and merge review.

    Side agents never see a chat's `--context-window` (that run's choice, often small to
    exercise compaction). Another model than the agent's gets its own window, never the
    agent's. For the agent's own model, agent.json's `contextWindow` describes that model as
    the user serves it (a local server's real limit), so it is kept and the chunks follow it;
    one below MIN_SIDE_WINDOW cannot hold a reflection at all and is a setting for chats, so
    the model's own window is used instead. Errors building it name it as the reflection model.
    """
    window = agent.context_window
    if window is not None and window < MIN_SIDE_WINDOW:
        agent = agent.with_updates(context_window=None)
    options = TurnOptions(model=model or None, base_url=base_url or None)
    try:
        return build_agent_provider(world, agent, options)
    except MiniLettaError as exc:
        if not model:
            raise
        raise ReflectionError(f"reflection model {model}: {exc}") from exc


def reflection_provider(
    world: World, agent: AgentRecord, settings: ReflectionSettings, options: LaunchOptions
) -> Provider:
    """`reflect --model`, else the stored reflection model, else the agent's model."""
    if options.provider is not None:
        return options.provider
    model = options.model or settings.model or None
    base_url = options.base_url or (settings.base_url if not options.model else None)
    return side_agent_provider(world, agent, model, base_url)


def _launch(
    world: World,
    agent: AgentRecord,
    stores: list[ConversationStore],
    options: LaunchOptions,
    bounds: Mapping[str, int],
    *,
    multi: bool,
) -> ReflectionOutcome:
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
            slices = _build_slices(world, stores, run_id, budget.chunk, bounds, replay=multi)
            if not slices:
                return _skip(options, "no_payload", stores)
            run = _Run(
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
            outcome = _run(run, slices, multi=multi)
            tidy_after_run(world.home, agent.id, settings, parent, world.clock)
            return outcome
        finally:
            if options.provider is None:  # built here: its connections go now, not at exit
                close_provider(provider)


def _build_slices(
    world: World,
    stores: list[ConversationStore],
    run_id: str,
    budget: int,
    bounds: Mapping[str, int],
    *,
    replay: bool,
) -> list[Slice]:
    """One payload per conversation while the budget (tokens) lasts: unreflected slices
    first, in order (the first gets all of it), then replays of the conversations with
    nothing new; `bounds` holds each conversation's launch line (missing: its log's end)."""
    served: dict[str, Slice] = {}
    remaining = budget
    for unreflected in (True, False) if replay else (True,):  # new content before replays
        for store in stores:
            if store.conversation_id in served:
                continue
            if remaining - TRANSCRIPT_WRAPPER_TOKENS < MIN_MAX_TOKENS:
                break
            room = remaining - TRANSCRIPT_WRAPPER_TOKENS  # its tag and notes around it
            state = read_reflection_state(store, clock=world.clock)
            payload = (
                build_payload(
                    store,
                    state,
                    name=run_id,
                    clock=world.clock,
                    launch_line=bounds.get(store.conversation_id),
                    max_tokens=room,
                )
                if unreflected
                else build_replay_payload(store, name=run_id, clock=world.clock, max_tokens=room)
            )
            if payload is not None:
                served[store.conversation_id] = Slice(store, state, payload)
                remaining = room - payload.tokens
    return [served[s.conversation_id] for s in stores if s.conversation_id in served]


def _run(run: _Run, slices: list[Slice], *, multi: bool) -> ReflectionOutcome:
    clock = run.world.clock
    started = clock.monotonic()
    facts = RunFacts(
        run_id=run.run_id,
        agent=run.agent,
        trigger=run.options.trigger,
        instruction=run.options.instruction,
        merge_mode=run.settings.merge,
        parent_head=run.parent.head_sha(),
        model=run.provider.handle,
        budget=run.budget.to_json(),
    )
    record = start_record(facts, slices, format_timestamp(clock.now()))
    save_run_record(run.world.home, record)
    payload_path = _manifest(run, slices) if multi else str(slices[0].payload.path)
    mark_started(slices, clock)
    provenance = RunProvenance(trailers=provenance_trailers(run.run_id, slices), run_id=run.run_id)
    try:
        final, agent_result = _execute(run, slices, provenance)
    except BaseException:
        save_run_record(run.world.home, interrupted_record(record, format_timestamp(clock.now())))
        raise
    states = settle_slices(slices, final, clock)
    duration = int((clock.monotonic() - started) * 1000)
    record = finish_record(
        record, final, states, agent_result, format_timestamp(clock.now()), duration
    ).with_updates(
        reasons=final.reasons,
        review=tuple(verdict.to_json() for verdict in final.review),
        citations=_citations(provenance),
        cited_lines=_cited_lines(provenance),
    )
    if final.status == "rejected":
        record = record.with_updates(branch=rejected_branch(run.run_id))
    path = save_run_record(run.world.home, record)
    return ReflectionOutcome(
        message=final.message,
        status=final.status,
        run_id=run.run_id,
        trigger=run.options.trigger,
        conversation_id=run.store.conversation_id,
        commit_count=final.commit_count,
        merge_commit=final.merge_commit,
        payload_path=payload_path,
        record_path=str(path),
        consecutive_failures=max((s.consecutive_failures for s in states.values()), default=0),
        lost_watermarks=tuple(
            piece.store.conversation_id for piece in slices if piece.payload.watermark_lost
        ),
    )


def provenance_trailers(run_id: str, slices: Sequence[Slice]) -> tuple[str, ...]:
    """The git trailers every commit of the run carries: run, conversations, message ranges."""
    trailers = [f"Reflection-Run: {run_id}"]
    for piece in slices:
        trailers.append(f"Conversation: {piece.store.conversation_id}")
        payload = piece.payload
        trailers.append(f"Messages: {payload.start_message_id}..{payload.end_message_id}")
    return tuple(trailers)


def rejected_branch(run_id: str) -> str:
    """Where a rejected run's commits wait for `reflections accept|discard`."""
    return f"{REJECTED_PREFIX}{run_id}"


def _citations(provenance: RunProvenance) -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for citation in provenance.citations:
        ids = cited.setdefault(citation.path, [])
        ids.extend(i for i in citation.message_ids if i not in ids)
    return cited


def _cited_lines(provenance: RunProvenance) -> dict[str, dict[str, list[str]]]:
    cited: dict[str, dict[str, list[str]]] = {}
    for citation in provenance.citations:
        for line in citation.lines:
            ids = cited.setdefault(citation.path, {}).setdefault(line, [])
            ids.extend(i for i in citation.message_ids if i not in ids)
    return cited


def _gate_input(run: _Run, slices: list[Slice], provenance: RunProvenance) -> GateInput:
    texts: list[str] = []
    ids: set[str] = set()
    messages: list[dict[str, Any]] = []
    for piece in slices:
        for message in load_payload(piece.payload.path)["messages"]:
            texts.append(str(message.get("content", "")))
            if isinstance(message.get("id"), str):
                ids.add(message["id"])
            if piece.payload.mode != "replay":  # a replay is context, not this run's evidence
                messages.append(message)
    return GateInput(
        transcript=texts,
        slice_ids=frozenset(ids),
        citations=provenance.citations,
        messages=messages,
        limits=GateLimits.for_window(
            run.primary_window,
            run.settings.system_budget_percent,
            run.settings.file_budget_percent,
        ),
    )


def _execute(
    run: _Run, slices: list[Slice], provenance: RunProvenance
) -> tuple[Finalised, SideAgentResult | None]:
    """Worktree, agent, finalisation; the worktree and its branch are removed whatever happens
    (a rejected run's commits are kept on `reflection-rejected/<run-id>` first)."""
    worktree: Worktree | None = None
    agent_result: SideAgentResult | None = None
    try:
        worktree = create_worktree(
            run.parent, run.world.home.memory_worktrees_dir(run.agent.id), run.run_id
        )
        agent_result = _run_agent(run, worktree, slices, provenance)
        error = agent_result.error
        gate = _gate_input(run, slices, provenance)
        final = finalise_worktree(
            run.parent,
            worktree,
            agent_error=None
            if error is None
            else f"reflection model {run.provider.handle}: {error}",
            merge=run.settings.merge,
            review=_reviewer(run) if run.settings.merge == "explicit" else None,
            gate=gate,
            refusals=agent_result.refusals,
            second_look=_second_look(run, gate),
        )
        if final.status == "rejected":
            run.parent.run("branch", "-f", rejected_branch(run.run_id), worktree.branch)
    except MiniLettaError as exc:
        final = Finalised("failed", status_message("failed", detail=str(exc)))
    finally:
        if worktree is not None:
            remove_worktree(run.parent, worktree)
    return final, agent_result


def _second_look(run: _Run, gate: GateInput) -> SecondLook | None:
    """The review model's verdicts on the hunks, when one is set and it is not the mock."""
    provider = run.options.review_provider
    if provider is None:
        model = run.settings.review_model
        if not model or model == "mock":
            return None
        base_url = run.settings.review_base_url or None
        provider = side_agent_provider(run.world, run.agent, model, base_url)
    if provider.handle == "mock":
        return None
    reviewer = provider

    def look(worktree: Worktree) -> ReviewOutcome:
        hunks = collect_hunks(run.parent, worktree.base, worktree.branch, gate)
        return review_hunks(reviewer, hunks, run.world.clock)

    return look


def _manifest(run: _Run, slices: list[Slice]) -> str:
    path = run.world.home.reflection_manifest_file(run.agent.id, run.run_id)
    save_manifest(
        path,
        agent_id=run.agent.id,
        run_id=run.run_id,
        created_at=format_timestamp(run.world.clock.now()),
        instruction=run.options.instruction,
        slices=[(piece.store.conversation_id, piece.payload) for piece in slices],
    )
    return str(path)


def _run_agent(
    run: _Run, worktree: Worktree, slices: list[Slice], provenance: RunProvenance
) -> SideAgentResult:
    payloads = [load_payload(piece.payload.path) for piece in slices]
    memory = run.compiler.memory_section(worktree.base)  # what the worktree checked out
    skills = render_memory_skill_list(run.compiler.memory_skills(worktree.base))
    memory = f"{memory}\n\n{skills}" if skills else memory
    limits = _gate_input(run, slices, provenance).limits
    over = files_over_budget(worktree.path, limits.file_tokens)
    task = build_reflection_task(payloads, memory, run.options.instruction, over)
    context = ToolContext(
        cwd=worktree.path,
        clock=run.world.clock,
        agent_id=run.agent.id,
        memory_dir=worktree.path,
        home=run.world.home,
        environ=run.world.environ,
    )
    spec = SideAgentSpec(
        purpose="reflection",
        agent=run.agent,
        provider=run.provider,
        toolset=Toolset(reflection_tools(provenance)),
        tool_context=context,
        system_prompt=reflection_system_prompt(),
        max_steps=run.options.max_steps,
    )
    transcript = RunTranscript(run.world.home, run.agent.id, run.run_id)
    return run_side_agent(
        spec, transcript, task, run.world.clock, on_step=lambda: run.lease.renew(run.world.clock)
    )


def _reviewer(run: _Run) -> Reviewer:
    if run.options.merge_provider is not None:
        return _review_with(run, run.options.merge_provider)
    provider = side_agent_provider(run.world, run.agent)
    review = _review_with(run, provider)

    def review_and_close(worktree: Worktree, commits: int) -> ReviewReport:
        try:
            return review(worktree, commits)
        finally:
            close_provider(provider)

    return review_and_close


def _review_with(run: _Run, provider: Provider) -> Reviewer:
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


def _skip(
    options: LaunchOptions, reason: SkipReason, stores: list[ConversationStore], detail: str = ""
) -> ReflectionOutcome:
    return ReflectionOutcome(
        message=skip_message(reason, detail),
        skip_reason=reason,
        trigger=options.trigger,
        conversation_id=stores[0].conversation_id,
    )
