"""Automatic launches: run now, or queue behind the running reflection.

`launch_automatic` runs a triggered reflection; if another run holds the agent's lease, the
launch is queued in `agents/<id>/reflection-queue.json` — one entry per agent, the latest wins —
and `Queued` is returned. Every lease holder drains the queue when its run is over (after its own
outcome was shown), and so does every process that queued: the holder releases the lease before
it drains and a queuer checks the lease after it writes, so an entry is never left behind with
no one to run it. That rule lives here, in `drained_after`, which every launch site wraps its
launch and its outcome's delivery in. A queued step-count launch re-checks its threshold first; a
compaction-event one always runs. An automatic launch skipped for a lasting reason
(`parent_dirty`, `memory_not_ready`, `error`) counts as a failed attempt, so it backs off and is
reported once, like a failed run; a refusal the next run would repeat is told once with the
command that fixes it (refusal.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta import log
from mini_letta.agents.records import AgentRecord
from mini_letta.agents.registry import load_agent
from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError, MiniLettaError
from mini_letta.home import Home, lock_file_for
from mini_letta.reflection.policy.backoff import is_step_count_due
from mini_letta.reflection.policy.refusal import note_refusal
from mini_letta.reflection.state.lease import is_lease_held, read_lease
from mini_letta.reflection.state.outbox import post_automatic_outcome
from mini_letta.reflection.state.outcome import (
    AutoTrigger,
    Queued,
    ReflectionOutcome,
    busy_message,
    skip_message,
)
from mini_letta.reflection.state.settings import load_reflection_settings
from mini_letta.reflection.state.watermark import read_reflection_state, update_reflection_state
from mini_letta.storage.atomic import load_json, quarantine_file, save_json
from mini_letta.storage.fields import require_str
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct, replace
from mini_letta.workspace import World

if TYPE_CHECKING:  # the run machinery is loaded by a launch, not by a look at the queue
    from mini_letta.reflection.run.setup import LaunchOptions


SCHEMA_VERSION = 1
MAX_DRAINED = 8  # runs one drain may start: a bound, should launches keep arriving
COUNTED_SKIPS = ("parent_dirty", "memory_not_ready", "error")
FOREGROUND_CHUNKS = 1  # slices a triggered reflection reflects in the turn's own process


class QueuedLaunch(Struct, frozen=True):
    trigger: AutoTrigger
    conversation_id: str
    queued_at: str
    pid: int

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "trigger": self.trigger,
            "conversationId": self.conversation_id,
            "queuedAt": self.queued_at,
            "pid": self.pid,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueuedLaunch:
        trigger = data.get("trigger")
        if trigger not in ("step-count", "compaction-event"):
            raise ValueError(f"trigger {trigger!r} is not step-count or compaction-event")
        pid = data.get("pid")
        return cls(
            trigger=trigger,
            conversation_id=require_str(data, "conversationId", non_empty=True),
            queued_at=require_str(data, "queuedAt"),
            pid=pid if isinstance(pid, int) and not isinstance(pid, bool) else 0,
        )


# ----- launching -------------------------------------------------------------------------------


def launch_automatic(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    trigger: AutoTrigger,
    options: LaunchOptions | None = None,
    *,
    foreground: bool = False,
) -> ReflectionOutcome | Queued:
    """Run a triggered reflection now, or queue it when another run holds the lease.

    Call it inside `drained_after`, so the queue is drained afterwards in either case.
    `options` (models, budgets) is for tests and benches; its trigger is replaced. In the
    `foreground` (after a turn, in the turn's process) it reflects one slice at most: the
    rest of a backlog is left for the next turns or `reflect --all`, never a held prompt.
    """
    from mini_letta.reflection.run.setup import LaunchOptions

    options = replace(options or LaunchOptions(), trigger=trigger)
    if foreground:
        options = replace(options, max_chunks=FOREGROUND_CHUNKS)
    outcome = _launch_once(world, agent, store, options)
    if outcome.skip_reason != "busy":
        return outcome
    entry = QueuedLaunch(
        trigger, store.conversation_id, format_timestamp(world.clock.now()), os.getpid()
    )
    put_queued_launch(world.home, agent.id, entry)
    holder = read_lease(world.home, agent.id, world.clock)
    running = f"run {holder.run_id}, pid {holder.pid} on {holder.host}" if holder else ""
    message = busy_message(
        running, "this one runs when it finishes, and its outcome is shown by the next command."
    )
    return Queued(trigger, store.conversation_id, message)


@contextmanager
def drained_after(world: World, agent_id: str) -> Iterator[None]:
    """Run the launch (and show its outcome) in the block; when it ends normally, run what was
    queued behind it, each outcome to the outbox. An interrupt leaves the queue for the next
    holder; a failure to drain is logged, never raised (the launch itself is done)."""
    yield
    try:
        drain_queued_launches(world, load_agent(world.home, agent_id))
    except MiniLettaError as exc:
        log.warning("queued reflection: %s", exc)


def drain_queued_launches(
    world: World,
    agent: AgentRecord,
    on_outcome: Callable[[ReflectionOutcome], None] | None = None,
    options: LaunchOptions | None = None,
) -> int:
    """Run what was queued while a reflection ran; returns how many runs were started.

    Each outcome goes to `on_outcome`, by default to the outbox (once per failure streak).
    """
    from mini_letta.reflection.run.hooked import open_reflect_hooks
    from mini_letta.reflection.run.setup import LaunchOptions

    base = options or LaunchOptions()
    if on_outcome is None:
        on_outcome = partial(post_automatic_outcome, world.home, agent.id, clock=world.clock)
    started = 0
    for _ in range(MAX_DRAINED):
        entry = take_queued_launch(world.home, agent.id, world.clock)
        if entry is None:
            break
        store = ConversationStore(agent.id, entry.conversation_id, world.home)
        if not store.exists() or not _still_due(world, agent, store, entry):
            continue
        hooks = base.hooks or open_reflect_hooks(world, store)  # run here, not when queued
        drained = replace(base, trigger=entry.trigger, hooks=hooks)
        outcome = _launch_once(world, agent, store, drained)
        if outcome.skip_reason == "busy":
            restore_queued_launch(world.home, agent.id, entry, world.clock)
            if is_lease_held(world.home, agent.id, world.clock):
                break  # the holder drains when it is done
            continue
        started += 1
        on_outcome(outcome)
    return started


def _still_due(
    world: World, agent: AgentRecord, store: ConversationStore, entry: QueuedLaunch
) -> bool:
    if entry.trigger == "compaction-event":
        return True
    settings = load_reflection_settings(world.home, world.project_dir, agent)
    if settings.trigger == "off":
        return False
    return is_step_count_due(store, read_reflection_state(store, clock=world.clock), settings)


def _launch_once(
    world: World, agent: AgentRecord, store: ConversationStore, options: LaunchOptions
) -> ReflectionOutcome:
    from mini_letta.reflection.run.launch import launch_reflection

    try:
        outcome = launch_reflection(world, agent, store, options)
    except MiniLettaError as exc:  # e.g. the model cannot be used: the turn itself was fine
        outcome = ReflectionOutcome(
            message=skip_message("error", str(exc)),
            skip_reason="error",
            trigger=options.trigger,
            conversation_id=store.conversation_id,
        )
    if outcome.skip_reason in COUNTED_SKIPS:
        outcome = _count_failed_attempt(world, store, outcome)
    return note_refusal(store, outcome, world.clock)


def _count_failed_attempt(
    world: World, store: ConversationStore, outcome: ReflectionOutcome
) -> ReflectionOutcome:
    now = format_timestamp(world.clock.now())
    state = update_reflection_state(
        store,
        lambda s: replace(
            s,
            consecutive_failures=s.consecutive_failures + 1,
            last_reflection_started_at=now,
            last_reflection_status=outcome.skip_reason,
        ),
        clock=world.clock,
    )
    return replace(outcome, consecutive_failures=state.consecutive_failures)


# ----- the queue file --------------------------------------------------------------------------


def put_queued_launch(home: Home, agent_id: str, entry: QueuedLaunch) -> None:
    """Queue `entry`, replacing any launch queued before it (the latest wins)."""
    with _lock(home, agent_id):
        save_json(_path(home, agent_id), entry.to_json())


def restore_queued_launch(home: Home, agent_id: str, entry: QueuedLaunch, clock: Clock) -> None:
    """Put back an entry that could not run yet, unless a newer launch was queued meanwhile."""
    with _lock(home, agent_id):
        if _read(home, agent_id, clock) is None:
            save_json(_path(home, agent_id), entry.to_json())


def take_queued_launch(home: Home, agent_id: str, clock: Clock) -> QueuedLaunch | None:
    path = _path(home, agent_id)
    if not path.exists():
        return None
    with _lock(home, agent_id):
        entry = _read(home, agent_id, clock)
        path.unlink(missing_ok=True)
        return entry


def read_queued_launch(home: Home, agent_id: str, clock: Clock) -> QueuedLaunch | None:
    """The waiting launch, left where it is (for status displays)."""
    if not _path(home, agent_id).exists():
        return None
    with _lock(home, agent_id):
        return _read(home, agent_id, clock)


def _read(home: Home, agent_id: str, clock: Clock) -> QueuedLaunch | None:
    path = _path(home, agent_id)
    try:
        data = load_json(path)
        return None if data is None else QueuedLaunch.from_json(data)
    except (CorruptFileError, ValueError) as exc:
        # Only a hint: the content it names stays unreflected and the next trigger covers it.
        moved = quarantine_file(path, clock.now())
        log.warning("dropped an unreadable queued reflection launch %s (%s)", moved, exc)
        return None


def _path(home: Home, agent_id: str) -> Path:
    return home.reflection_queue_file(agent_id)


def _lock(home: Home, agent_id: str) -> Any:
    path = lock_file_for(home.reflection_queue_file(agent_id))
    return exclusive_lock(path, timeout=10.0, what=f"the reflection queue of {agent_id}")
