"""A conversation's reflection backlog: how much waits, what it would cost, and reflecting it
slice by slice with progress (`reflect --all`, `import --reflect`).

Each slice is a launch of its own (one chunk, its commit and record), so stopping between two
slices keeps every finished one and a later call resumes at the watermark. The core never
watches signals: the caller passes `should_stop`, asked after each slice. Counting what waits
is O(1) (the watermark's line and the log's length); estimating its tokens and slices reads
the unreflected part once, forwards, and only for a plan (`--dry-run`, the progress bar).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from mini_letta.agents.records import AgentRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.llm.prices import ModelPrice, price_of
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.reflection.run.payload import normalise_message
from mini_letta.reflection.state.outcome import ReflectionOutcome
from mini_letta.reflection.state.records import load_run_record
from mini_letta.reflection.state.watermark import (
    ReflectionState,
    backlog_messages,
    estimate_slices,
    read_reflection_state,
    unreflected_messages,
)
from mini_letta.structs import Struct, replace
from mini_letta.workspace import World

if TYPE_CHECKING:
    from mini_letta.reflection.run.setup import LaunchOptions

# A reflection agent sends its context again at each step (read, edit, finish): the estimate
# counts this many requests per slice, each with the fixed part and the slice.
REQUESTS_PER_SLICE = 3
OUTPUT_TOKENS_PER_SLICE = 600


class BacklogPlan(Struct, frozen=True):
    """What reflecting a conversation's whole backlog would send, estimated before sending."""

    conversation_id: str
    messages: int
    tokens: int  # of transcript, as the reflection task shows it
    slices: int
    chunk_tokens: int
    fixed_tokens: int  # per request: system prompt, tools, memory, task
    model: str
    price: ModelPrice | None

    @property
    def input_tokens(self) -> int:
        return REQUESTS_PER_SLICE * (self.slices * self.fixed_tokens + self.tokens)

    @property
    def output_tokens(self) -> int:
        return self.slices * OUTPUT_TOKENS_PER_SLICE

    @property
    def cost(self) -> float | None:
        """Estimated US dollars, or None for a model with no known price (the mock, a local one)."""
        if self.price is None:
            return None
        return self.price.cost(self.input_tokens, self.output_tokens)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "reflection_plan",
            "conversationId": self.conversation_id,
            "messages": self.messages,
            "tokens": self.tokens,
            "slices": self.slices,
            "chunkTokens": self.chunk_tokens,
            "model": self.model,
            "estimatedInputTokens": self.input_tokens,
            "estimatedOutputTokens": self.output_tokens,
            "estimatedCostUsd": None if self.cost is None else round(self.cost, 4),
        }


def plan_backlog(world: World, agent: AgentRecord, store: ConversationStore) -> BacklogPlan:
    """Read the unreflected messages once and pack them into slices as the runs would; sends
    nothing and writes nothing."""
    from mini_letta.reflection.run.setup import (
        LaunchOptions,
        memory_compiler,
        reflection_provider,
        run_budget,
    )
    from mini_letta.reflection.state.settings import load_reflection_settings

    settings = load_reflection_settings(world.home, world.project_dir, agent)
    provider = reflection_provider(world, agent, settings, LaunchOptions())
    budget = run_budget(provider, memory_compiler(world, agent).memory_section(), LaunchOptions())
    state = read_reflection_state(store, clock=world.clock)
    messages, tokens, slices = 0, 0, 0
    for sizes in _slices(store, state, budget.chunk):
        messages, tokens, slices = messages + sizes[0], tokens + sizes[1], slices + 1
    return BacklogPlan(
        conversation_id=store.conversation_id,
        messages=backlog_messages(store, state),
        tokens=tokens,
        slices=slices,
        chunk_tokens=budget.chunk,
        fixed_tokens=budget.fixed,
        model=provider.handle,
        price=price_of(provider.handle),
    )


def _slices(
    store: ConversationStore, state: ReflectionState, chunk: int
) -> Iterator[tuple[int, int]]:
    """(messages, tokens) of each slice, packed greedily by the payload's own measure."""
    count, total = 0, 0
    for _, message in unreflected_messages(store, state):
        data = normalise_message(message)
        size = 0 if data is None else _size(data)
        if count and total + size > chunk:
            yield count, total
            count, total = 0, 0
        count, total = count + 1, total + min(size, chunk)
    if count:
        yield count, total


def _size(data: dict[str, Any]) -> int:
    return estimate_tokens(json.dumps(data, ensure_ascii=False, separators=(",", ":"))) + 1


class BacklogProgress(Struct, frozen=True):
    """After each slice of `reflect_backlog`: how far it got and what is left."""

    conversation_id: str
    slices_done: int
    slices_left: int
    messages_done: int
    messages_left: int
    tokens_done: int
    elapsed: float  # seconds since the backlog run started
    outcome: ReflectionOutcome

    @property
    def eta(self) -> float | None:
        """Seconds left at the pace so far; None before the first slice."""
        if self.slices_done == 0:
            return None
        return self.elapsed / self.slices_done * self.slices_left

    def to_json(self) -> dict[str, Any]:
        eta = self.eta
        return {
            "type": "reflection_progress",
            "conversationId": self.conversation_id,
            "slicesDone": self.slices_done,
            "slicesLeft": self.slices_left,
            "messagesDone": self.messages_done,
            "messagesLeft": self.messages_left,
            "tokensDone": self.tokens_done,
            "elapsedSeconds": round(self.elapsed, 3),
            "etaSeconds": None if eta is None else round(eta, 3),
            "status": self.outcome.status,
            "skipReason": self.outcome.skip_reason,
            "runId": self.outcome.run_id,
            "message": self.outcome.message,
        }


class BacklogResult(Struct, frozen=True):
    slices: int
    outcome: ReflectionOutcome  # the last slice's
    stopped: bool  # `should_stop` said so before the backlog was done
    messages_left: int


def reflect_backlog(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    *,
    plan: BacklogPlan | None = None,
    on_slice: Callable[[BacklogProgress], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    options: LaunchOptions | None = None,
) -> BacklogResult:
    """Reflect the conversation up to the log's end now, one slice per launch, until it is done,
    a slice does not succeed, or `should_stop()` is true after a slice. `plan` (else the
    average so far) sizes the slices left; `options` are `LaunchOptions` for every launch."""
    from mini_letta.reflection.run.launch import launch_reflection
    from mini_letta.reflection.run.setup import LaunchOptions

    end = store.count()
    base = replace(options or LaunchOptions(), max_chunks=1, launch_line=end)
    start = world.clock.monotonic()
    total = backlog_messages(store, stop_line=end)
    slices, tokens = 0, 0
    while True:
        outcome = launch_reflection(world, agent, store, base)
        left = backlog_messages(store, stop_line=end)
        if outcome.launched:
            slices += 1
            tokens += _slice_tokens(world, agent, outcome)
        done = total - left
        if on_slice is not None and outcome.launched:
            per_message = tokens / done if done else 0.0
            chunk = plan.chunk_tokens if plan else max(1, tokens // max(1, slices))
            on_slice(
                BacklogProgress(
                    conversation_id=store.conversation_id,
                    slices_done=slices,
                    slices_left=estimate_slices(left, chunk, per_message or 1.0),
                    messages_done=done,
                    messages_left=left,
                    tokens_done=tokens,
                    elapsed=world.clock.monotonic() - start,
                    outcome=outcome,
                )
            )
        if not outcome.ok or not outcome.launched or left == 0:
            return BacklogResult(slices, outcome, False, left)
        if should_stop():
            return BacklogResult(slices, outcome, True, left)


def _slice_tokens(world: World, agent: AgentRecord, outcome: ReflectionOutcome) -> int:
    if outcome.run_id is None:
        return 0
    record = load_run_record(world.home, agent.id, outcome.run_id)
    return sum(piece.tokens or 0 for piece in record.slices if piece.mode == "unreflected")
