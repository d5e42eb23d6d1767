"""The reflection watermark: `reflection-state.json` per conversation.

The watermark is a message id with its line beside it, so finding it is one indexed read (the id
is checked at that line; a search by id is the fallback; an id the log no longer has means
"everything is unreflected again" and is reported, never hidden). It only moves forward, and
only through `advance_watermark`. Writes are atomic and read-modify-write under a state lock.
A corrupt state file is moved aside and rebuilt from the run records, which hold each run's
`watermarkAfter`; when they cannot tell, it is a clear error rather than a silent reset.
Costs: locating the watermark is O(1); counting steps walks only the messages after it and stops
early at `limit`, so the post-turn check costs O(stepCount) however long the conversation is;
the state's step counters are carried (`countedLines`), so settling a slice reads about that
slice whatever the backlog behind it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any, NotRequired, TypedDict

from mini_letta import log
from mini_letta.clock import Clock, SystemClock
from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError
from mini_letta.reflection.state.records import find_consumed_watermark
from mini_letta.storage.atomic import load_json, quarantine_file, save_json
from mini_letta.storage.fields import optional_int, optional_str
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct, replace

SCHEMA_VERSION = 1


class ReflectionStateJson(TypedDict):
    schemaVersion: int
    reflectedThroughMessageId: str | None
    reflectedThroughLine: int | None
    totalCompletedSteps: int
    reflectedCompletedSteps: int
    stepsSinceLastSuccessfulReflection: int
    lastReflectionStartedAt: str | None
    lastReflectionSucceededAt: str | None
    lastReflectionStatus: str | None
    consecutiveFailures: int
    countedLines: int | None
    toldRefusal: NotRequired[str | None]
    refusalFix: NotRequired[str | None]


class ReflectionState(Struct, frozen=True):
    reflected_through_message_id: str | None = None
    reflected_through_line: int | None = None
    total_completed_steps: int = 0
    reflected_completed_steps: int = 0
    steps_since_last_successful_reflection: int = 0
    last_reflection_started_at: str | None = None
    last_reflection_succeeded_at: str | None = None
    last_reflection_status: str | None = None
    consecutive_failures: int = 0
    # The log lines `total_completed_steps` covers: a settlement counts only the lines after
    # them, so the counters are carried, not recounted from the whole log.
    counted_lines: int | None = None
    # A refusal the next run would repeat, told once (reflection/refusal.py): what was told,
    # and the command that fixes it, until a run moves the watermark again.
    told_refusal: str | None = None
    refusal_fix: str | None = None

    def to_json(self) -> ReflectionStateJson:
        data = self._spec_json()
        if self.told_refusal is not None:  # only while a refusal holds: the spec's shape else
            data["toldRefusal"] = self.told_refusal
            data["refusalFix"] = self.refusal_fix
        return data

    def _spec_json(self) -> ReflectionStateJson:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "reflectedThroughMessageId": self.reflected_through_message_id,
            "reflectedThroughLine": self.reflected_through_line,
            "totalCompletedSteps": self.total_completed_steps,
            "reflectedCompletedSteps": self.reflected_completed_steps,
            "stepsSinceLastSuccessfulReflection": self.steps_since_last_successful_reflection,
            "lastReflectionStartedAt": self.last_reflection_started_at,
            "lastReflectionSucceededAt": self.last_reflection_succeeded_at,
            "lastReflectionStatus": self.last_reflection_status,
            "consecutiveFailures": self.consecutive_failures,
            "countedLines": self.counted_lines,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReflectionState:
        """Raises ValueError naming the first bad field; missing optional fields are unset."""
        version = data.get("schemaVersion")
        if version != SCHEMA_VERSION:
            raise ValueError(f"schemaVersion {version!r} is not {SCHEMA_VERSION}")
        return cls(
            reflected_through_message_id=optional_str(data, "reflectedThroughMessageId") or None,
            reflected_through_line=optional_int(data, "reflectedThroughLine", minimum=0),
            total_completed_steps=optional_int(data, "totalCompletedSteps", minimum=0) or 0,
            reflected_completed_steps=optional_int(data, "reflectedCompletedSteps", minimum=0) or 0,
            steps_since_last_successful_reflection=(
                optional_int(data, "stepsSinceLastSuccessfulReflection", minimum=0) or 0
            ),
            last_reflection_started_at=optional_str(data, "lastReflectionStartedAt"),
            last_reflection_succeeded_at=optional_str(data, "lastReflectionSucceededAt"),
            last_reflection_status=optional_str(data, "lastReflectionStatus"),
            consecutive_failures=optional_int(data, "consecutiveFailures", minimum=0) or 0,
            counted_lines=optional_int(data, "countedLines", minimum=0),
            told_refusal=optional_str(data, "toldRefusal"),
            refusal_fix=optional_str(data, "refusalFix"),
        )


class Watermark(Struct, frozen=True):
    """Where the reflected part of the log ends; line -1 means nothing is reflected yet."""

    line: int = -1
    message_id: str | None = None
    lost: bool = False  # the state names an id that the log no longer has


# ----- reading and writing the state -----------------------------------------------------------


def read_reflection_state(
    store: ConversationStore, *, clock: Clock | None = None
) -> ReflectionState:
    """The conversation's state; no file means nothing reflected. Reading never creates files.

    A corrupt file is quarantined and rebuilt (see the module docstring); raises
    CorruptFileError when the run records cannot tell how far reflection had got.
    """
    try:
        data = load_json(store.files.reflection_state)
        if data is None:
            return ReflectionState()
        return ReflectionState.from_json(data)
    except (CorruptFileError, ValueError) as exc:
        detail = exc.detail if isinstance(exc, CorruptFileError) else str(exc)
        return _rebuild(store, clock or SystemClock(), detail)


def save_reflection_state(store: ConversationStore, state: ReflectionState) -> None:
    save_json(store.files.reflection_state, state.to_json())


def update_reflection_state(
    store: ConversationStore,
    change: Callable[[ReflectionState], ReflectionState],
    *,
    clock: Clock | None = None,
) -> ReflectionState:
    """Read-modify-write under the state lock, so two writers never lose each other's change."""
    with _state_lock(store):
        updated = change(read_reflection_state(store, clock=clock))
        save_reflection_state(store, updated)
        return updated


def advance_watermark(
    state: ReflectionState,
    current: Watermark,
    new: Watermark,
    *,
    reflected_steps: int,
    succeeded_at: str,
) -> ReflectionState:
    """Move the watermark from `current` (as located in the log) to `new`; never backwards.

    `reflected_steps` is the number of steps up to and including the new watermark line.
    """
    if new.message_id is None or new.line <= current.line:
        return replace(state, last_reflection_succeeded_at=succeeded_at)
    return replace(
        state,
        reflected_through_message_id=new.message_id,
        reflected_through_line=new.line,
        reflected_completed_steps=reflected_steps,
        last_reflection_succeeded_at=succeeded_at,
    )


def with_step_counters(state: ReflectionState, steps_since: int) -> ReflectionState:
    """The three step counters, consistent: total = reflected + since."""
    return replace(
        state,
        total_completed_steps=state.reflected_completed_steps + steps_since,
        steps_since_last_successful_reflection=steps_since,
        counted_lines=None,
    )


def with_carried_counters(
    store: ConversationStore, state: ReflectionState, watermark: Watermark, *, reach: int
) -> ReflectionState:
    """The three step counters after a settlement, carried rather than recounted.

    They cover the log's lines [0, countedLines); a settlement counts on from there to `reach`
    (at least the line after the watermark, at most the log's end), so settling a slice reads
    about that slice: the caller's reach is a little past the slice, so a backlog is counted as
    it is reflected, and once caught up a settlement reads only the lines appended since. A
    state that carries no count (an older file, an undo), or one the log no longer matches,
    starts again from line 0.
    """
    end = store.count()
    counted, total = state.counted_lines, state.total_completed_steps
    if watermark.lost:
        state = replace(state, reflected_completed_steps=0)
    if counted is None or counted > end or watermark.lost:
        counted, total = 0, 0
    stop = min(end, max(counted, reach, watermark.line + 1))
    total += count_steps(store, counted, stop)
    since = total - state.reflected_completed_steps
    if since < 0:  # reflected steps from an older file that the log disagrees with
        since = count_steps(store, watermark.line + 1, stop)
        state = replace(state, reflected_completed_steps=total - since)
    return replace(
        state,
        total_completed_steps=total,
        steps_since_last_successful_reflection=since,
        counted_lines=stop,
    )


# ----- the watermark in the log ----------------------------------------------------------------


def locate_watermark(store: ConversationStore, state: ReflectionState) -> Watermark:
    """O(1) when `reflectedThroughLine` still holds the id; else a search by id."""
    message_id = state.reflected_through_message_id
    if not message_id:
        return Watermark()
    found = store.by_id(message_id, hint_line=state.reflected_through_line)
    if found is None:
        return Watermark(-1, None, lost=True)
    return Watermark(found[0], message_id)


class UnreflectedMessages:
    """The messages after the watermark as (line, message), streamed from the log.

    `watermark_lost` is True when the state named a message the log no longer has, so
    everything is offered again; `stop_line` (exclusive) is a launch boundary.
    """

    def __init__(
        self, store: ConversationStore, watermark: Watermark, stop_line: int | None = None
    ) -> None:
        self.store = store
        self.watermark = watermark
        self.stop_line = stop_line

    @property
    def start_line(self) -> int:
        return self.watermark.line + 1

    @property
    def watermark_lost(self) -> bool:
        return self.watermark.lost

    def __iter__(self) -> Iterator[tuple[int, Message]]:
        for line, message in self.store.iter_from(self.start_line):
            if self.stop_line is not None and line >= self.stop_line:
                return
            yield line, message


def unreflected_messages(
    store: ConversationStore,
    state: ReflectionState | None = None,
    *,
    stop_line: int | None = None,
) -> UnreflectedMessages:
    state = state if state is not None else read_reflection_state(store)
    return UnreflectedMessages(store, locate_watermark(store, state), stop_line)


def backlog_messages(
    store: ConversationStore, state: ReflectionState | None = None, *, stop_line: int | None = None
) -> int:
    """Messages after the watermark, up to `stop_line` (default the log's end); O(1): the
    watermark's line and the log's length."""
    state = state if state is not None else read_reflection_state(store)
    end = store.count() if stop_line is None else stop_line
    return max(0, end - locate_watermark(store, state).line - 1)


def estimate_slices(messages: int, chunk_tokens: int, tokens_per_message: float) -> int:
    """Slices for `messages` at an average size; 0 for none, else at least 1."""
    if messages <= 0:
        return 0
    return max(1, math.ceil(messages * tokens_per_message / max(1, chunk_tokens)))


def steps_since_last_reflection(
    store: ConversationStore,
    state: ReflectionState | None = None,
    *,
    limit: int | None = None,
) -> int:
    """Assistant messages after the watermark (a tool-call-only one counts too).

    Walks backwards from the end and stops at the watermark, or as soon as `limit` steps are
    found (the answer is then `limit`, meaning "at least"), so a threshold check costs
    O(limit) even when reflection has not succeeded for a long time.
    """
    state = state if state is not None else read_reflection_state(store)
    watermark = locate_watermark(store, state)
    return count_steps(store, watermark.line + 1, limit=limit)


def count_steps(
    store: ConversationStore,
    start_line: int,
    stop_line: int | None = None,
    *,
    limit: int | None = None,
) -> int:
    """Assistant messages on lines [start_line, stop_line): read forwards over just those lines,
    or, with a `limit`, backwards from the end, stopping once `limit` are found."""
    steps = 0
    if limit is None:
        for line, message in store.iter_from(max(0, start_line)):
            if stop_line is not None and line >= stop_line:
                break
            steps += message.role == "assistant"
        return steps
    for line, message in store.iter_reverse():
        if line < start_line:
            break
        if stop_line is not None and line >= stop_line:
            continue
        if message.role == "assistant":
            steps += 1
            if limit is not None and steps >= limit:
                break
    return steps


# ----- recovery -----------------------------------------------------------------------------


def _rebuild(store: ConversationStore, clock: Clock, detail: str) -> ReflectionState:
    path = store.files.reflection_state
    with _state_lock(store):
        try:  # another process may have repaired it while we waited for the lock
            data = load_json(path)
            if data is None:
                return ReflectionState()
            return ReflectionState.from_json(data)
        except (CorruptFileError, ValueError):
            pass
        try:
            consumed = find_consumed_watermark(store.home, store.agent_id, store.conversation_id)
        except CorruptFileError as exc:
            raise CorruptFileError(
                path,
                detail,
                f"the run records cannot tell how far reflection got ({exc}); fix the file, "
                "or delete it to reflect on the whole conversation again",
            ) from exc
        state = ReflectionState()
        start = 0
        if consumed is not None:
            found = store.by_id(consumed.message_id, hint_line=consumed.line)
            if found is not None:
                start = found[0] + 1
                state = ReflectionState(
                    reflected_through_message_id=consumed.message_id,
                    reflected_through_line=found[0],
                    reflected_completed_steps=count_steps(store, 0, start),
                    last_reflection_started_at=consumed.started_at,
                    last_reflection_succeeded_at=consumed.finished_at,
                    last_reflection_status=consumed.status,
                )
        state = with_step_counters(state, count_steps(store, start))
        moved = quarantine_file(path, clock.now())
        save_reflection_state(store, state)
    log.warning(
        "%s was corrupt (%s); kept it as %s and rebuilt it from the run records (reflected "
        "through %s)",
        path,
        detail,
        moved.name,
        state.reflected_through_message_id or "nothing yet",
    )
    return state


def _state_lock(store: ConversationStore) -> Any:
    return exclusive_lock(
        store.files.reflection_state_lock, what=f"reflection state of {store.conversation_id}"
    )
