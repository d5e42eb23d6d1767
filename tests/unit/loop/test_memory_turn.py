"""Memory inside a turn: the compiled prompt, the memory tool, and a commit seen next call."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from mini_letta.conversations.messages import ToolCall
from mini_letta.llm.base import ModelEvent, ModelRequest, ModelToolCall, StopEvent, TextDelta
from mini_letta.loop.events import TurnResult
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.workspace import resolve_agent, resolve_conversation


@dataclass
class RecordingProvider:
    steps: list[list[ModelEvent]]
    handle: str = "test/recording"
    context_window: int = 8192
    requests: list[ModelRequest] = field(default_factory=list)

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        self.requests.append(request)
        yield from self.steps.pop(0)


def test_memory_commit_is_visible_on_the_next_model_call(world):
    agent = resolve_agent(world, None)
    store = resolve_conversation(world, agent, None)
    args = {"command": "insert", "path": "system/human.md", "content": "- likes tea",
            "reason": "tea"}  # fmt: skip
    provider = RecordingProvider(
        [
            [ModelToolCall(ToolCall("c1", "memory", json.dumps(args))), StopEvent("tool_use")],
            [TextDelta("noted"), StopEvent("end_turn")],
        ]
    )
    setup = dataclasses.replace(
        build_turn_setup(world, agent, store, TurnOptions()), provider=provider
    )
    result = list(run_turn(setup, "I like tea"))[-1]
    assert isinstance(result, TurnResult) and result.text == "noted"
    first, second = (request.system for request in provider.requests)
    assert "- likes tea" not in first and "- likes tea" in second
    assert first.startswith(agent.system)
    assert '<self path="system/persona.md">' in first
    assert f"- agent id: {agent.id}" in first
    assert f"- memory path: {world.home.memory_dir(agent.id)}" in first
    assert [tool.name for tool in provider.requests[0].tools] == ["memory"]
    assert world.home.prompt_cache_file(agent.id).exists()
