"""run_turn: one user message in, model steps and tool calls until the model ends its turn.

Every message is appended durably before it is reported, so an interrupt or crash keeps
everything already shown. Each assistant message is one step. The turn holds the
conversation's lock from the user message to the last append, so two processes chatting in
one conversation take turns instead of interleaving. The stop reason goes on the last assistant
message and into conversation.json `lastTurn`. Context pressure (loop/pressure.py) is checked
before each model call and after the final response, and a provider overflow is retried there.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

from mini_letta.clock import format_timestamp
from mini_letta.context.compaction_flag import load_compaction_flag
from mini_letta.conversations.messages import Message, StopReason, ToolCall, Usage
from mini_letta.conversations.records import ConversationRecord, make_title
from mini_letta.errors import (
    ContextOverflowError,
    ContextWindowTooSmallError,
    InvalidValueError,
    ProviderError,
)
from mini_letta.ids import new_message_id
from mini_letta.llm.base import (
    ModelRequest,
    ModelToolCall,
    ReasoningDelta,
    StopEvent,
    TextDelta,
    UsageEvent,
)
from mini_letta.loop.events import (
    AssistantDelta,
    MessageEvent,
    ThoughtDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnResult,
)
from mini_letta.loop.pressure import (
    Pressure,
    check_after_response,
    request_after_overflow,
    request_before_call,
)
from mini_letta.loop.setup import TurnSetup
from mini_letta.memory.recover import require_memory
from mini_letta.tools.base import execute_tool_call


def run_turn(setup: TurnSetup, user_text: str) -> Generator[TurnEvent, None, None]:
    """Run one turn, yielding events; the last event is always a TurnResult.

    Provider errors end the turn with stop reason `error` (reported, not raised).
    KeyboardInterrupt keeps what was appended, records `interrupted`, and propagates.
    """
    if not user_text.strip():
        raise InvalidValueError('the prompt is empty; say something (for example -p "hello")')
    if setup.max_steps < 1:
        raise InvalidValueError(f"--max-steps must be at least 1, got {setup.max_steps}")
    with setup.store.lock():
        yield from _run_locked(setup, user_text)


def _run_locked(setup: TurnSetup, user_text: str) -> Iterator[TurnEvent]:
    store = setup.store
    record = _check_ready(setup)
    user = _message(setup, "user", user_text)
    usage = Usage()
    reported = 0  # model calls that reported usage
    steps = 0
    final_text = ""
    stop: StopReason = "end_turn"
    error: str | None = None
    partial: list[str] = []
    pressure = Pressure()
    try:  # from the user's message on, an interrupt is recorded (even at its event)
        yield MessageEvent(user, store.append(user)[0])
        # the first turn names the conversation at once: with the prompt's pin, in one write
        named = None if record.title else _record_changes(setup, record, title=user.content)
        if setup.pinned is not None:
            setup.pinned.begin_turn(user.id, named)
        elif named is not None:
            setup.store.save_record(setup.store.load_record().with_updates(**named))
        while True:
            last_step = steps + 1 >= setup.max_steps
            measure = yield from request_before_call(setup, pressure)
            while True:
                try:
                    calls, step_usage, model_stop = yield from _stream(
                        setup, measure.request, partial
                    )
                    break
                except ContextOverflowError as exc:
                    if partial:  # text already shown cannot be taken back
                        raise
                    measure = yield from request_after_overflow(setup, pressure, exc)
            text = "".join(partial)
            partial.clear()
            if calls:
                model_stop = "max_steps" if last_step else "tool_use"
            assistant = _message(
                setup,
                "assistant",
                text,
                tool_calls=tuple(calls),
                usage=step_usage,
                stop_reason=model_stop,
                model=setup.provider.handle,
            )
            yield MessageEvent(assistant, store.append(assistant)[0])
            steps += 1
            usage = usage + (step_usage or Usage())
            reported += step_usage is not None
            if text:
                final_text = text
            if not calls:
                stop = model_stop
                yield from check_after_response(setup, pressure, measure.with_answer(assistant))
                break
            before = setup.pinned.head() if setup.pinned is not None else ""
            yield from _run_tools(setup, calls)
            if setup.pinned is not None:
                setup.pinned.note_own_edits(before)
            if last_step:
                stop = "max_steps"
                break
    except (ProviderError, ContextWindowTooSmallError) as exc:
        stop, error = "error", str(exc)
        if partial:  # the stream broke after text was shown: keep what the user saw
            kept = _message(
                setup,
                "assistant",
                "".join(partial),
                stop_reason="error",
                model=setup.provider.handle,
            )
            yield MessageEvent(kept, store.append(kept)[0])
    except KeyboardInterrupt:
        if partial:
            kept = _message(
                setup,
                "assistant",
                "".join(partial),
                stop_reason="interrupted",
                model=setup.provider.handle,
            )
            store.append(kept)
        last = {"stopReason": "interrupted", "steps": steps}
        _touch_record(setup, last_turn=last, usage=(usage, reported))
        raise
    last_turn: dict[str, object] = {"stopReason": stop, "steps": steps}
    if error:
        last_turn["error"] = error
    _touch_record(setup, last_turn=last_turn, usage=(usage, reported))
    yield TurnResult(stop, final_text, usage, steps, error)


def _check_ready(setup: TurnSetup) -> ConversationRecord:
    """Read what the turn will need before anything is appended, so a corrupt conversation.json
    or a lost memory fails the turn with the log untouched (a corrupt compaction flag is
    repaired here)."""
    record = setup.store.load_record()
    if setup.purpose == "chat":
        load_compaction_flag(setup.store, clock=setup.clock)
        if setup.tool_context.memory_dir is not None:
            require_memory(setup.tool_context.memory_dir, setup.agent.name)
    return record


def _run_tools(setup: TurnSetup, calls: list[ToolCall]) -> Iterator[TurnEvent]:
    for call in calls:
        yield ToolCallEvent(call)
        result = execute_tool_call(call, setup.toolset, setup.tool_context)
        tool_message = _message(
            setup,
            "tool",
            result.content,
            tool_call_id=call.id,
            name=call.name,
            is_error=result.is_error,
        )
        line = setup.store.append(tool_message)[0]
        yield ToolResultEvent(call, result)
        yield MessageEvent(tool_message, line)


def _stream(
    setup: TurnSetup, request: ModelRequest, partial: list[str]
) -> Generator[TurnEvent, None, tuple[list[ToolCall], Usage | None, StopReason]]:
    """One model call; text goes into `partial` as it streams (kept if interrupted); reasoning
    is passed on as it streams and kept nowhere."""
    calls: list[ToolCall] = []
    usage: Usage | None = None
    stop: StopReason = "end_turn"
    for event in setup.provider.stream(request):
        if isinstance(event, TextDelta):
            partial.append(event.text)
            yield AssistantDelta(event.text)
        elif isinstance(event, ReasoningDelta):
            yield ThoughtDelta(event.text)
        elif isinstance(event, ModelToolCall):
            calls.append(event.call)
        elif isinstance(event, UsageEvent):
            usage = event.usage
        elif isinstance(event, StopEvent):
            stop = event.reason
    return calls, usage, stop


def _message(setup: TurnSetup, role: str, content: str, **fields: object) -> Message:
    now = setup.clock.now()
    return Message(
        id=new_message_id(now),
        role=role,  # type: ignore[arg-type]
        content=content,
        created_at=format_timestamp(now),
        **fields,  # type: ignore[arg-type]
    )


def _touch_record(
    setup: TurnSetup,
    *,
    title: str | None = None,
    last_turn: dict[str, object] | None = None,
    usage: tuple[Usage, int] | None = None,
) -> None:
    record = setup.store.load_record()
    changes = _record_changes(setup, record, title=title, last_turn=last_turn, usage=usage)
    setup.store.save_record(record.with_updates(**changes))


def _record_changes(
    setup: TurnSetup,
    record: ConversationRecord,
    *,
    title: str | None = None,
    last_turn: dict[str, object] | None = None,
    usage: tuple[Usage, int] | None = None,
) -> dict[str, object]:
    """The turn's updates to conversation.json: its time, and the title, last turn and usage."""
    changes: dict[str, object] = {"updated_at": format_timestamp(setup.clock.now())}
    if title is not None and not record.title:
        changes["title"] = make_title(title)
    if last_turn is not None:
        changes["last_turn"] = last_turn
        if usage is not None:
            changes["usage_totals"] = setup.store.with_turn_usage(record.usage_totals, *usage)
    return changes
