"""`mini-letta status`: one agent's health at a glance, gathered without reading any whole log.

What it shows: the agent and its models, memory HEAD and whether it is clean, the effective
reflection settings, the last run and its outcome, a running or queued run, and for the
project's current conversation and the most recent others: messages, steps since the last
reflection (counted backwards with a bound, so a long-neglected conversation costs no more
than a busy one), the backlog in messages (O(1)) and estimated slices (from the latest messages'
size), consecutive failures, when an automatic retry may next start, and the command that
fixes a refusal the next run would repeat.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.registry import list_conversations
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.policy.backoff import retry_delay, step_threshold
from mini_letta.reflection.policy.launcher import QueuedLaunch, read_queued_launch
from mini_letta.reflection.state.lease import LeaseHolder, running_holder
from mini_letta.reflection.state.records import RunRecord, latest_run_record
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.reflection.state.watermark import (
    backlog_messages,
    estimate_slices,
    read_reflection_state,
    steps_since_last_reflection,
)
from mini_letta.structs import Struct

RECENT_CONVERSATIONS = 3
SAMPLE_MESSAGES = 20
# reflection/run/budget.py's bound (held equal by a test), without loading what budget.py loads
MAX_CHUNK_TOKENS = 25_000
PER_MESSAGE_TOKENS = 24  # a message's id, role and time in the reflection task
STEP_COUNT_CAP = 200  # beyond this (or the trigger's bar) "at least" is all status needs


class ConversationHealth(Struct, frozen=True):
    conversation_id: str
    title: str
    current: bool
    messages: int
    steps_since_reflection: int
    steps_capped: bool  # the count stopped at its bound: "at least"
    steps_needed: int  # for a step-count trigger, after the failure backoff
    consecutive_failures: int
    last_status: str | None
    next_retry_at: str | None  # set while an automatic retry waits out its backoff
    backlog_messages: int = 0  # after the watermark
    backlog_slices: int = 0  # estimated from the latest messages' size and the chunk size
    refusal_fix: str | None = None  # a refusal the next run would repeat: the fixing command


class MemoryHealth(Struct, frozen=True):
    path: str
    head: str | None
    clean: bool
    changes: int


class AgentHealth(Struct, frozen=True):
    agent: AgentRecord
    reflection_model: str
    memory: MemoryHealth
    settings: ReflectionSettings
    last_run: RunRecord | None
    running: LeaseHolder | None
    queued: QueuedLaunch | None
    conversations: tuple[ConversationHealth, ...]


def gather_health(
    home: Home,
    agent: AgentRecord,
    settings: ReflectionSettings,
    clock: Clock,
    current_conversation: str | None,
) -> AgentHealth:
    now = clock.now()
    last_run = latest_run_record(home, agent.id)
    return AgentHealth(
        agent=agent,
        reflection_model=settings.model or agent.model,  # `sleeptime --model`, else the agent's
        memory=_memory(home.memory_dir(agent.id)),
        settings=settings,
        last_run=last_run,
        running=running_holder(home, agent.id, clock),
        queued=read_queued_launch(home, agent.id, clock),
        conversations=_conversations(
            home, agent, settings, now, current_conversation, _chunk_tokens(last_run)
        ),
    )


def _chunk_tokens(last_run: RunRecord | None) -> int:
    """The transcript tokens of one slice, as the latest run was budgeted (else the most)."""
    chunk = (last_run.budget if last_run else {}).get("chunkTokens")
    return chunk if chunk else MAX_CHUNK_TOKENS


def _tokens_per_message(store: ConversationStore) -> float:
    """The average size of the latest messages, a cheap stand-in for the whole backlog's."""
    sample = store.tail(SAMPLE_MESSAGES)
    if not sample:
        return 0.0
    sizes = [estimate_tokens(m.content) + PER_MESSAGE_TOKENS for _, m in sample]
    return sum(sizes) / len(sizes)


def _memory(memory_dir: Path) -> MemoryHealth:
    from mini_letta.memory.recover import memory_problem

    repo = GitRepo(memory_dir)
    if memory_problem(memory_dir) is not None:  # lost or broken: `memory recover` says more
        return MemoryHealth(str(memory_dir), None, False, 0)
    changes = repo.changed_paths()
    return MemoryHealth(str(memory_dir), repo.head_sha_or_none(), not changes, len(changes))


def _conversations(
    home: Home,
    agent: AgentRecord,
    settings: ReflectionSettings,
    now: datetime,
    current: str | None,
    chunk: int,
) -> tuple[ConversationHealth, ...]:
    records = list_conversations(home, agent.id)
    chosen = [r for r in records if r.id == current]
    chosen += [r for r in records if r.id != current][: RECENT_CONVERSATIONS - len(chosen)]
    found = []
    for record in chosen:
        store = ConversationStore(agent.id, record.id, home)
        state = read_reflection_state(store)
        needed = step_threshold(settings, state.consecutive_failures)
        bound = max(STEP_COUNT_CAP, needed)
        steps = steps_since_last_reflection(store, state, limit=bound)
        retry_at = None
        if state.consecutive_failures and state.last_reflection_started_at:
            started = datetime.fromisoformat(state.last_reflection_started_at)
            at = started + retry_delay(state.consecutive_failures)
            retry_at = format_timestamp(at) if at > now else None
        waiting = backlog_messages(store, state)
        slices = estimate_slices(waiting, chunk, _tokens_per_message(store)) if waiting else 0
        found.append(
            ConversationHealth(
                conversation_id=record.id,
                title=record.title,
                current=record.id == current,
                messages=store.count(),
                steps_since_reflection=steps,
                steps_capped=steps >= bound,
                steps_needed=needed,
                consecutive_failures=state.consecutive_failures,
                last_status=state.last_reflection_status,
                next_retry_at=retry_at,
                backlog_messages=waiting,
                backlog_slices=slices,
                refusal_fix=state.refusal_fix,
            )
        )
    return tuple(found)
