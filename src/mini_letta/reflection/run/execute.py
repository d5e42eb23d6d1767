"""A reflection run on its slices, once launched: record, worktree, agent, finalise, settle.

`execute_run` writes the record `running`, runs the reflection agent in its own worktree,
finalises it (the memory gate, the review, the merge), removes the worktree
whatever happens, settles each conversation's watermark and completes the record. An
interrupt records `interrupted` and propagates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mini_letta.clock import format_timestamp
from mini_letta.errors import MiniLettaError
from mini_letta.llm.base import Provider, close_provider
from mini_letta.loop.setup import build_system_prompt
from mini_letta.reflection.gate.check import GateInput, GateLimits
from mini_letta.reflection.gate.hunk_review import ReviewOutcome, collect_hunks, review_hunks
from mini_letta.reflection.run.agent import (
    RunTranscript,
    SideAgentResult,
    SideAgentSpec,
    run_side_agent,
)
from mini_letta.reflection.run.finalise import (
    Finalised,
    Reviewer,
    ReviewReport,
    SecondLook,
    finalise_worktree,
)
from mini_letta.reflection.run.payload import load_payload, save_manifest
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
from mini_letta.reflection.run.setup import RunSetup, side_agent_provider
from mini_letta.reflection.run.task import build_reflection_task, reflection_system_prompt
from mini_letta.reflection.run.tools import RunProvenance, reflection_tools
from mini_letta.reflection.run.worktree import Worktree, create_worktree, remove_worktree
from mini_letta.reflection.state.outcome import ReflectionOutcome, status_message
from mini_letta.reflection.state.records import save_run_record
from mini_letta.reflection.state.upkeep import files_over_budget
from mini_letta.skills.prompt import render_memory_skill_list
from mini_letta.tools.base import ToolContext, Toolset

REJECTED_PREFIX = "reflection-rejected/"
RENEW_EVERY = 60.0  # seconds between the lease's renewals while the agent works


def execute_run(run: RunSetup, slices: list[Slice], *, multi: bool) -> ReflectionOutcome:
    """Run the reflection on `slices` and settle it; the outcome names the run and its record."""
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


def _gate_input(
    run: RunSetup,
    slices: list[Slice],
    payloads: list[dict[str, Any]],
    provenance: RunProvenance,
) -> GateInput:
    texts: list[str] = []
    ids: set[str] = set()
    messages: list[dict[str, Any]] = []
    for piece, payload in zip(slices, payloads, strict=True):
        for message in payload["messages"]:
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
        limits=_limits(run),
    )


def _limits(run: RunSetup) -> GateLimits:
    """The memory budgets the gate holds the run to, shares of the agent's model window."""
    return GateLimits.for_window(
        run.primary_window, run.settings.system_budget_percent, run.settings.file_budget_percent
    )


def _execute(
    run: RunSetup, slices: list[Slice], provenance: RunProvenance
) -> tuple[Finalised, SideAgentResult | None]:
    """Worktree, agent, finalisation; the worktree is removed whatever happens (a rejected
    run's commits are kept on `reflection-rejected/<run-id>` first)."""
    worktree: Worktree | None = None
    agent_result: SideAgentResult | None = None
    try:
        worktree = create_worktree(
            run.parent, run.world.home.memory_worktrees_dir(run.agent.id), run.run_id
        )
        payloads = [load_payload(piece.payload.path) for piece in slices]  # read once
        agent_result = _run_agent(run, worktree, payloads, provenance)
        error = agent_result.error
        gate = _gate_input(run, slices, payloads, provenance)
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
            log=provenance.worktree,
        )
        if final.status == "rejected":
            run.parent.run("branch", "-f", rejected_branch(run.run_id), worktree.tip())
    except MiniLettaError as exc:
        final = Finalised("failed", status_message("failed", detail=str(exc)))
    finally:
        if worktree is not None:
            remove_worktree(run.parent, worktree)
    return final, agent_result


def _second_look(run: RunSetup, gate: GateInput) -> SecondLook | None:
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
        hunks = collect_hunks(run.parent, worktree.base, worktree.tip(), gate)
        return review_hunks(reviewer, hunks, run.world.clock)

    return look


def _manifest(run: RunSetup, slices: list[Slice]) -> str:
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
    run: RunSetup,
    worktree: Worktree,
    payloads: list[dict[str, Any]],
    provenance: RunProvenance,
) -> SideAgentResult:
    memory = run.compiler.memory_section(worktree.base)  # what the worktree checked out
    skills = render_memory_skill_list(run.compiler.memory_skills(worktree.base))
    memory = f"{memory}\n\n{skills}" if skills else memory
    over = files_over_budget(worktree.path, _limits(run).file_tokens)
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
    return run_side_agent(spec, transcript, task, run.world.clock, on_step=_renewer(run))


def _renewer(run: RunSetup) -> Callable[[], None]:
    """Renews the lease after a step once RENEW_EVERY seconds have passed since the last time:
    a lease lasts half an hour, and a renewal is a locked, fsynced write, so a run of a few
    quick steps makes none."""
    clock = run.world.clock
    last = clock.monotonic()

    def after_step() -> None:
        nonlocal last
        if clock.monotonic() - last >= RENEW_EVERY:
            run.lease.renew(clock)
            last = clock.monotonic()

    return after_step


def _reviewer(run: RunSetup) -> Reviewer:
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


def _review_with(run: RunSetup, provider: Provider) -> Reviewer:
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
