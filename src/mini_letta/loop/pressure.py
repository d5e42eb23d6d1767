"""Context pressure in a turn: measure the request, compact when due, never exceed the window.

Before each model call the whole request (system prompt, tool schemas, reminder, in-context
messages) is measured, corrected by the last reported usage. Above the threshold it is compacted,
once per turn; a request that would exceed the window is compacted even a second time, or refused
with ContextWindowTooSmallError when not even the system prompt and the current turn fit (never
a loop). After the final response the threshold is checked again. A provider overflow compacts
harder and retries, at most MAX_OVERFLOW_COMPACTIONS times per turn. Callers hold the lock.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING

from mini_letta import log
from mini_letta.context.builder import ContextView, compaction_threshold, load_context_view
from mini_letta.context.compaction_record import settle_compaction
from mini_letta.context.prompt_pin import UPDATE_ID_PREFIX
from mini_letta.context.reminders import Reminder, attach_reminder, save_reminder_carrier
from mini_letta.errors import ContextOverflowError, ContextWindowTooSmallError, MiniLettaError
from mini_letta.llm.base import ModelRequest
from mini_letta.llm.tokens import (
    MESSAGE_OVERHEAD,
    corrected_tokens,
    estimate_message_tokens,
    estimate_prompt_tokens,
    estimate_tokens,
)
from mini_letta.loop.events import CompactionEvent, MessageEvent, TurnEvent
from mini_letta.structs import Struct, replace

if TYPE_CHECKING:
    from mini_letta.context.compaction import (
        CompactionResult,
        CompactionSkipped,
        CompactionTrigger,
    )
    from mini_letta.conversations.messages import Message
    from mini_letta.loop.setup import TurnSetup


MAX_OVERFLOW_COMPACTIONS = 3


class Pressure(Struct):
    """One turn's compaction bookkeeping."""

    compacted: bool = False
    overflows: int = 0


class ContextMeasure(Struct, frozen=True):
    request: ModelRequest
    view: ContextView
    window: int
    prompt_tokens: int  # system prompt + tool schemas + reminder
    tokens: int  # the whole request, corrected by reported usage
    carrier: str | None  # a reminder carrier to record, when it moved
    fixed_tokens: int  # system prompt + tool schemas: what `tokens` adds the messages to
    anchor_from: int  # the first message whose reported usage counts (see corrected_tokens)

    @property
    def threshold(self) -> int:
        return compaction_threshold(self.window)

    def with_answer(self, answer: Message) -> ContextMeasure:
        """The context once `answer` follows this request: sized without reading the log
        again, as measure_context would size it."""
        messages = (*self.request.messages, answer)
        return replace(
            self,
            request=replace(self.request, messages=messages),
            tokens=corrected_tokens(self.fixed_tokens, messages, self.anchor_from),
            carrier=None,
        )


def measure_context(setup: TurnSetup) -> ContextMeasure:
    """The request the next model call would send, and its size. Reads only."""
    system = setup.system_prompt()
    tools = setup.toolset.specs
    reminder_text = _reminder(setup).render()
    prompt = estimate_prompt_tokens(system, tools)
    reminder_tokens = estimate_tokens(reminder_text) + MESSAGE_OVERHEAD
    window = setup.provider.context_window
    view = load_context_view(setup.store, max(1, window - prompt - reminder_tokens))
    attached = attach_reminder(view, reminder_text)
    fresh = view.fresh_from
    if attached.index is not None and attached.index < fresh:
        fresh += 1
    messages = attached.messages
    if setup.pinned is not None:
        messages = setup.pinned.attach_updates(messages)
        fresh += sum(1 for m in messages[:fresh] if m.id.startswith(UPDATE_ID_PREFIX))
    request = ModelRequest(
        system=system,
        messages=messages,
        tools=tools,
        purpose=setup.purpose,
        max_output_tokens=setup.agent.max_output_tokens,
        temperature=setup.agent.temperature,
    )
    return ContextMeasure(
        request=request,
        view=view,
        window=window,
        prompt_tokens=prompt + (reminder_tokens if attached.index is not None else 0),
        tokens=corrected_tokens(prompt, messages, fresh),
        carrier=attached.carrier_id if attached.moved else None,
        fixed_tokens=prompt,
        anchor_from=fresh,
    )


def request_before_call(
    setup: TurnSetup, pressure: Pressure
) -> Generator[TurnEvent, None, ContextMeasure]:
    """The next model call's request and its size, compacted first when over the threshold."""
    measure = _prepared(setup)
    over = measure.tokens > measure.threshold and not pressure.compacted
    must = measure.tokens > measure.window
    if over or must or measure.view.truncated:  # truncated: older context would be dropped
        floor = measure.prompt_tokens + _current_turn_tokens(setup)
        if floor > measure.window:
            raise ContextWindowTooSmallError(
                measure.window, floor, "the system prompt and the current turn"
            )
        try:
            compacted = yield from _compact(setup, pressure, measure, "before-call")
        except ContextWindowTooSmallError:
            if must:
                raise
            compacted = False  # too small to summarise in, but this request still fits
        if compacted:
            measure = _prepared(setup)
    if measure.tokens > measure.window:
        raise ContextWindowTooSmallError(
            measure.window, measure.tokens, "the system prompt and the current turn"
        )
    return measure


def check_after_response(
    setup: TurnSetup, pressure: Pressure, measure: ContextMeasure
) -> Iterator[TurnEvent]:
    """Compact after a final response that left the context (`measure`: the last request
    with its answer) over the threshold, once per turn.

    Called only after a step without tool calls, so a summary never lands between a call and
    its result in the log; a step with calls is covered by the check before the next call.
    """
    if pressure.compacted:
        return
    if measure.tokens <= measure.threshold:
        return
    try:
        yield from _compact(setup, pressure, measure, "after-response")
    except MiniLettaError as exc:  # the answer stands; the next model call tries again
        log.warning("compaction after the response failed (%s); will retry next call", exc)


def request_after_overflow(
    setup: TurnSetup, pressure: Pressure, error: ContextOverflowError
) -> Generator[TurnEvent, None, ContextMeasure]:
    """Compact harder after the provider reported an overflow; re-raise when that cannot help."""
    if pressure.overflows >= MAX_OVERFLOW_COMPACTIONS:
        raise error
    pressure.overflows += 1
    measure = _prepared(setup)
    # The model's real limit is below what we just sent: plan as if that were the window.
    window = min(measure.window, measure.tokens)
    try:
        compacted = yield from _compact(
            setup,
            pressure,
            measure,
            "overflow",
            window=window,
            shrink=2 ** (pressure.overflows - 1),
        )
    except ContextWindowTooSmallError:
        raise error from None  # the provider's own message says more than our planning window
    if not compacted:
        raise error
    return _prepared(setup)


def compact_now(
    setup: TurnSetup, focus: str | None = None
) -> CompactionResult | CompactionSkipped | None:
    """On-demand compaction (`mini-letta compact`, `/compact`), optionally with a focus for
    the summary; takes the conversation lock itself."""
    from mini_letta.context.compaction import compact_conversation, plan_budget

    with setup.store.lock():
        measure = _prepared(setup)
        budget = plan_budget(measure.window, measure.prompt_tokens)
        result = compact_conversation(
            setup.store,
            setup.provider,
            setup.clock,
            budget,
            "manual",
            measure.tokens,
            focus,
            on_start=_pre_compact_hooks(setup, "manual", focus),
        )
        if result is not None and setup.pinned is not None:
            setup.pinned.recompile()
        return result


def _prepared(setup: TurnSetup) -> ContextMeasure:
    """measure_context, after settling an interrupted compaction and recording the carrier."""
    measure = measure_context(setup)
    if settle_compaction(setup.store, measure.view):
        measure = measure_context(setup)
    if measure.carrier is not None:
        save_reminder_carrier(setup.store, measure.carrier)
    return measure


def _compact(
    setup: TurnSetup,
    pressure: Pressure,
    measure: ContextMeasure,
    trigger: CompactionTrigger,
    *,
    window: int | None = None,
    shrink: int = 1,
) -> Generator[TurnEvent, None, bool]:
    from mini_letta.context.compaction import CompactionSkipped, compact_conversation, plan_budget

    budget = plan_budget(window or measure.window, measure.prompt_tokens, shrink)
    result = compact_conversation(
        setup.store,
        setup.provider,
        setup.clock,
        budget,
        trigger,
        measure.tokens,
        on_start=_pre_compact_hooks(setup, "auto", None),
    )
    if result is None:
        return False
    pressure.compacted = True  # tried once this turn, whatever came of it
    if isinstance(result, CompactionSkipped):
        log.warning("compaction skipped: %s", result.reason)
        return False
    if setup.pinned is not None:
        setup.pinned.recompile()  # a new prefix anyway: let it show memory as it is now
    yield CompactionEvent(
        messages_compacted=result.messages_compacted,
        tokens_before=result.tokens_before,
        tokens_after=result.tokens_after,
        trigger=trigger,
        summary_message_id=result.summary.id,
    )
    yield MessageEvent(result.summary, result.line)
    return True


def _pre_compact_hooks(
    setup: TurnSetup, trigger: str, focus: str | None
) -> Callable[[], None] | None:
    """The user's PreCompact hooks, to run once a compaction is sure to happen (None: the
    session has no hooks; they cannot stop it)."""
    hooks = setup.tool_context.hooks
    if hooks is None:
        return None
    from mini_letta.hooks.runner import HookRunner

    if not isinstance(hooks, HookRunner):
        return None
    return lambda: hooks.before_compact(trigger, focus)


def _current_turn_tokens(setup: TurnSetup) -> int:
    """The newest user message and everything after it: what compaction can never remove."""
    total = 0
    for _, message in setup.store.iter_reverse():
        if message.role == "summary":
            continue
        total += estimate_message_tokens(message)
        if message.role == "user":
            break
    return total


def _reminder(setup: TurnSetup) -> Reminder:
    ctx = setup.tool_context
    return Reminder(
        agent_id=setup.agent.id,
        conversation_id=setup.store.conversation_id,
        memory_dir=ctx.memory_dir,
        cwd=ctx.cwd,
    )
