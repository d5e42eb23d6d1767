"""run_turn with injected providers and tools: steps, tool calls, stop reasons, interrupts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mini_letta.conversations.messages import ToolCall, Usage
from mini_letta.errors import InvalidValueError, TransientError
from mini_letta.llm.base import (
    ModelEvent,
    ModelRequest,
    ModelToolCall,
    ProviderInUse,
    StopEvent,
    TextDelta,
    ToolSpec,
    UsageEvent,
)
from mini_letta.llm.registry import ProviderOptions, build_provider
from mini_letta.loop.events import MessageEvent, ThoughtDelta, ToolResultEvent, TurnResult
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.structs import Struct, field
from mini_letta.tools.base import ToolContext, ToolResult, Toolset
from mini_letta.workspace import resolve_conversation
from support.agents import project_agent
from support.groups import SDK
from support.scripted_server import openai_stream, openai_tool_call


class ScriptedProvider(Struct):
    """Replays a list of step scripts; each is a list of events (or an exception to raise)."""

    steps: list[list[ModelEvent] | BaseException]
    handle: str = "test/scripted"
    context_window: int = 8192
    requests: list[ModelRequest] = field(default_factory=list)

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        self.requests.append(request)
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        yield from step


class EchoTool:
    spec = ToolSpec("echo", "Echo the text.", {"type": "object"})
    kind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args.get("boom"):
            raise RuntimeError("tool exploded")
        return ToolResult(f"echo: {args['text']}")


def _setup(world, provider, *, tools=(), max_steps=20):
    agent = project_agent(world)
    store = resolve_conversation(world, agent, None)
    setup = build_turn_setup(world, agent, store, TurnOptions(max_steps=max_steps))
    return store, setup.__class__(
        agent=setup.agent,
        store=store,
        provider=provider,
        toolset=Toolset(tuple(tools)),
        tool_context=setup.tool_context,
        clock=setup.clock,
        system_prompt=setup.system_prompt,
        max_steps=max_steps,
    )


def _call(call_id: str, args: str) -> ModelToolCall:
    return ModelToolCall(ToolCall(call_id, "echo", args))


def test_tool_call_then_answer(world):
    provider = ScriptedProvider(
        [
            [_call("c1", '{"text": "hi"}'), UsageEvent(Usage(10, 2)), StopEvent("tool_use")],
            [TextDelta("done"), UsageEvent(Usage(20, 1)), StopEvent("end_turn")],
        ]
    )
    store, setup = _setup(world, provider, tools=[EchoTool()])
    events = list(run_turn(setup, "please echo"))
    result = events[-1]
    assert isinstance(result, TurnResult)
    assert (result.stop_reason, result.steps, result.text) == ("end_turn", 2, "done")
    assert result.usage == Usage(30, 3)
    roles = [m.role for m in store.all()]
    assert roles == ["user", "assistant", "tool", "assistant"]
    tool_msg = [m for m in store.all() if m.role == "tool"][0]
    assert tool_msg.content == "echo: hi" and tool_msg.tool_call_id == "c1"
    # The second request carried the tool result back to the model (after the reminder).
    sent = [m for m in provider.requests[1].messages if not m.id.startswith("reminder-")]
    assert [m.role for m in sent] == ["user", "assistant", "tool"]


@SDK
def test_reasoning_streams_as_thoughts_and_is_never_kept_or_replayed(world, clock, scripted_server):
    scripted_server.queue(
        openai_stream(
            tool_calls=[openai_tool_call("c1", "echo", '{"text": "hi"}')],
            reasoning="First I echo.",
        ),
        openai_stream("echoed", reasoning="The echo came back."),
    )
    options = ProviderOptions(
        environ={"OPENAI_API_KEY": "sk-test-dummy"}, base_url=scripted_server.url, clock=clock
    )
    with ProviderInUse(build_provider("openai/x", options)) as provider:
        store, setup = _setup(world, provider, tools=[EchoTool()])
        events = list(run_turn(setup, "please echo"))
    thoughts = "".join(e.text for e in events if isinstance(e, ThoughtDelta))
    assert thoughts == "First I echo.The echo came back."
    result = events[-1]
    assert isinstance(result, TurnResult) and (result.text, result.steps) == ("echoed", 2)
    logged = store.all()
    assert [(m.role, m.content) for m in logged if m.role == "assistant"] == [
        ("assistant", ""),
        ("assistant", "echoed"),
    ]
    # nowhere in the home: not the log, the record, nor memory (so reflection never sees it)
    kept = b"".join(p.read_bytes() for p in world.home.root.rglob("*") if p.is_file())
    assert b"echo came back" not in kept and b"First I echo" not in kept
    assert b"echoed" in kept
    replayed = str(scripted_server.requests[1].body["messages"])
    assert "First I echo" not in replayed  # the model's next request carries the answer only


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("{not json", "ToolInputError: arguments are not valid JSON"),
        ("[1, 2]", "ToolInputError: arguments must be a JSON object"),
        ('{"boom": true}', "RuntimeError: tool exploded"),
    ],
    ids=["malformed-json", "not-an-object", "tool-raises"],
)
def test_bad_tool_calls_become_error_results(world, args, expected):
    provider = ScriptedProvider(
        [[_call("c1", args), StopEvent("tool_use")], [TextDelta("ok"), StopEvent("end_turn")]]
    )
    _, setup = _setup(world, provider, tools=[EchoTool()])
    results = [e for e in run_turn(setup, "go") if isinstance(e, ToolResultEvent)]
    assert results[0].result.is_error
    assert results[0].result.content.startswith(expected)


def test_unknown_tool_is_reported_to_the_model(world):
    provider = ScriptedProvider(
        [
            [ModelToolCall(ToolCall("c1", "nope", "{}")), StopEvent("tool_use")],
            [TextDelta("ok"), StopEvent("end_turn")],
        ]
    )
    _, setup = _setup(world, provider, tools=[EchoTool()])
    results = [e for e in run_turn(setup, "go") if isinstance(e, ToolResultEvent)]
    assert "no tool named 'nope'" in results[0].result.content


def test_max_steps_stops_a_looping_model(world):
    loop = [[_call(f"c{i}", '{"text": "x"}'), StopEvent("tool_use")] for i in range(5)]
    store, setup = _setup(world, ScriptedProvider(loop), tools=[EchoTool()], max_steps=3)
    result = list(run_turn(setup, "loop"))[-1]
    assert result.stop_reason == "max_steps" and result.steps == 3
    assistants = [m for m in store.all() if m.role == "assistant"]
    assert assistants[-1].stop_reason == "max_steps"
    assert store.load_record().last_turn["stopReason"] == "max_steps"


def test_provider_error_ends_turn_with_error(world):
    store, setup = _setup(world, ScriptedProvider([TransientError("server said 503")]))
    result = list(run_turn(setup, "hello"))[-1]
    assert result.stop_reason == "error" and "503" in (result.error or "")
    assert [m.role for m in store.all()] == ["user"]
    assert store.load_record().last_turn["stopReason"] == "error"


def test_interrupt_keeps_user_message_and_partial_text(world):
    def interrupted() -> Iterator[ModelEvent]:
        yield TextDelta("half an ans")
        raise KeyboardInterrupt

    class Interrupting(ScriptedProvider):
        def stream(self, request):
            return interrupted()

    store, setup = _setup(world, Interrupting([]))
    with pytest.raises(KeyboardInterrupt):
        list(run_turn(setup, "long question"))
    messages = list(store.all())
    assert [(m.role, m.content) for m in messages] == [
        ("user", "long question"),
        ("assistant", "half an ans"),
    ]
    assert messages[1].stop_reason == "interrupted"
    assert store.load_record().last_turn["stopReason"] == "interrupted"
    # The lock was released: another turn in the same conversation runs.
    _, again = _setup(world, ScriptedProvider([[TextDelta("ok"), StopEvent("end_turn")]]))
    assert list(run_turn(again, "again"))[-1].stop_reason == "end_turn"


def test_empty_prompt_is_refused_before_anything_is_written(world):
    store, setup = _setup(world, ScriptedProvider([]))
    with pytest.raises(InvalidValueError):
        list(run_turn(setup, "  \n"))
    assert store.count() == 0


def test_events_report_lines_in_order(world):
    store, setup = _setup(world, ScriptedProvider([[TextDelta("a"), StopEvent("end_turn")]]))
    lines = [e.line for e in run_turn(setup, "x") if isinstance(e, MessageEvent)]
    assert lines == [0, 1]
    assert store.load_record().title == "x"
