"""Memory inside a turn: the compiled prompt, the memory tool, and a commit seen next call."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import mini_letta.structs
from mini_letta.conversations.messages import ToolCall, Usage
from mini_letta.llm.base import (
    ModelEvent,
    ModelRequest,
    ModelToolCall,
    StopEvent,
    TextDelta,
    UsageEvent,
)
from mini_letta.llm.history import normalize_history
from mini_letta.llm.mock import MockProvider
from mini_letta.loop.events import CompactionEvent, TurnResult
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.memory.edits import apply_memory_edit
from mini_letta.memory.repo import GitRepo
from mini_letta.structs import Struct, field
from mini_letta.workspace import resolve_conversation
from support.agents import project_agent
from support.compaction_fakes import CHINESE_TURNS
from support.compaction_fakes import RecordingProvider as Recording


class RecordingProvider(Struct):
    steps: list[list[ModelEvent]]
    handle: str = "test/recording"
    context_window: int = 8192
    requests: list[ModelRequest] = field(default_factory=list)

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        self.requests.append(request)
        yield from self.steps.pop(0)


def _remember(fact: str) -> list[list[ModelEvent]]:
    args = {"command": "insert", "path": "system/human.md", "content": f"- {fact}",
            "reason": fact}  # fmt: skip
    return [
        [ModelToolCall(ToolCall("c1", "memory", json.dumps(args))), StopEvent("tool_use")],
        [TextDelta("noted"), StopEvent("end_turn")],
    ]


def _answer() -> list[list[ModelEvent]]:
    return [[TextDelta("ok"), StopEvent("end_turn")]]


def _setup(world, provider, store=None, **options):
    agent = project_agent(world)
    store = store or resolve_conversation(world, agent, None)
    setup = build_turn_setup(world, agent, store, TurnOptions(**options))
    return mini_letta.structs.replace(setup, provider=provider)


def _turn(setup, text="hi"):
    result = list(run_turn(setup, text))[-1]
    assert isinstance(result, TurnResult) and result.stop_reason == "end_turn"
    return result


def test_memory_own_edit_keeps_the_prompt_byte_identical(world):
    """The agent learns its edit from the tool result; the prefix stays cacheable."""
    agent = project_agent(world)
    provider = RecordingProvider([*_remember("likes tea"), *_answer()])
    setup = _setup(world, provider)
    assert _turn(setup, "I like tea").text == "noted"
    _turn(setup, "and now?")
    first, second, third = (request.system for request in provider.requests)
    assert first == second == third and "- likes tea" not in first
    call, result = provider.requests[1].messages[-2:]  # what it knows of its edit
    assert "likes tea" in call.tool_calls[0].arguments and "committed" in result.content
    assert first.startswith(agent.system)
    assert '<self path="system/persona.md">' in first
    assert f"- agent id: {agent.id}" in first
    assert f"- memory path: {world.home.memory_dir(agent.id)}" in first
    assert [tool.name for tool in provider.requests[0].tools] == ["memory"]
    assert world.home.prompt_cache_file(agent.id).exists()
    assert setup.pinned is not None and setup.pinned.is_pending()
    pin = setup.store.load_record().system_prompt
    assert pin["memoryCommit"] != pin["seenCommit"] == setup.pinned.head()


@pytest.mark.parametrize("point", ["new-conversation", "recompile-flag", "request-recompile"])
def test_memory_recompile_points_show_the_agent_s_own_edit(world, point):
    provider = RecordingProvider([*_remember("likes tea"), *_answer()])
    setup = _setup(world, provider)
    _turn(setup, "I like tea")
    if point == "new-conversation":
        agent = project_agent(world)
        store = resolve_conversation(world, agent, None, new=True)
        setup = _setup(world, provider, store=store)
    elif point == "recompile-flag":
        setup = _setup(world, provider, recompile=True)
    else:
        assert setup.pinned is not None
        setup.pinned.request_recompile()
        assert setup.pinned.is_pending()
    _turn(setup)
    assert "- likes tea" in provider.requests[-1].system
    assert setup.pinned is not None and not setup.pinned.is_pending()


def _merge_from_elsewhere(world, setup, content="- owl", path="system/human.md"):
    """A reflection merge (or the user's edit, or another conversation) lands between turns."""
    memory_dir = world.home.memory_dir(setup.agent.id)
    apply_memory_edit(memory_dir, "insert", {"path": path, "content": content})
    GitRepo(memory_dir).commit_paths([path], "merge(reflection): owl")


def test_memory_changed_by_someone_else_rides_with_the_next_user_message(world):
    """The prompt and the conversation so far stay byte-identical (cacheable); the change is a
    <memory_update> in the next user message, and stays where it was in every later request."""
    provider = RecordingProvider([*_answer(), *_answer(), *_answer(), *_answer()])
    setup = _setup(world, provider)
    _turn(setup, "one")
    _turn(setup, "two")
    _merge_from_elsewhere(world, setup)
    _turn(setup, "three")
    _turn(setup, "four")
    systems = {request.system for request in provider.requests}
    assert len(systems) == 1 and "- owl" not in systems.pop()
    second, third, fourth = (normalize_history(r.messages) for r in provider.requests[1:])
    assert third[: len(second)] == second
    carrier = third[-1]
    assert carrier.content.endswith("three") and "<memory_update" in carrier.content
    update = carrier.content[carrier.content.index("<memory_update") :]
    assert '<file path="system/human.md"' in update and "- owl" in update
    assert "persona" not in update  # only what changed
    assert fourth[: len(third)] == third
    assert sum("<memory_update" in m.content for m in fourth) == 1
    pin = setup.store.load_record().system_prompt
    assert pin["seenCommit"] == setup.pinned.head() != pin["memoryCommit"]


def test_memory_updates_fold_into_the_prompt_at_the_next_recompile(world):
    provider = RecordingProvider([*_answer(), *_answer(), *_answer()])
    setup = _setup(world, provider)
    _turn(setup, "one")
    _merge_from_elsewhere(world, setup)
    _turn(setup, "two")
    assert setup.pinned is not None
    setup.pinned.request_recompile()
    _turn(setup, "three")
    last = provider.requests[-1]
    assert "- owl" in last.system
    assert not any("<memory_update" in m.content for m in last.messages)
    assert "updates" not in setup.store.load_record().system_prompt


def test_memory_updates_that_outweigh_the_memory_recompile_instead(world):
    """Each update repeats whole files in every later request: once they outgrow the prompt
    they amend, one recompile makes every later request smaller."""
    provider = RecordingProvider([step for _ in range(4) for step in _answer()])
    setup = _setup(world, provider)
    _turn(setup, "one")
    big = "- " + "a long note about owls " * 40
    _merge_from_elsewhere(world, setup, big)
    _turn(setup, "two")
    assert "<memory_update" in normalize_history(provider.requests[-1].messages)[-1].content
    _merge_from_elsewhere(world, setup, big.replace("owls", "bats") * 2)
    _turn(setup, "three")
    last = provider.requests[-1]
    assert "bats" in last.system and "owls" in last.system
    assert not any("<memory_update" in m.content for m in last.messages)


def test_memory_reflection_prompt_reads_the_pin_without_writing(world):
    provider = RecordingProvider([*_answer()])
    setup = _setup(world, provider)
    before = setup.store.load_record()
    assert setup.system_prompt() == setup.system_prompt()
    assert setup.store.load_record() == before


def test_memory_compaction_recompiles_the_prompt(world):
    """The agent's own edit and a memory update told earlier are folded into the prompt."""
    provider = Recording(MockProvider(context_window=1500))
    setup = _setup(world, provider)
    _turn(setup, "请记住我用 vim")
    _merge_from_elsewhere(world, setup)
    _turn(setup, "你好")
    assert "<memory_update" in normalize_history(provider.chat_requests()[-1].messages)[-1].content
    compacted_at = None
    for index, text in enumerate(CHINESE_TURNS[:11]):
        events = list(run_turn(setup, text))
        if compacted_at is None and any(isinstance(e, CompactionEvent) for e in events):
            compacted_at = index
            break
    assert compacted_at is not None, "the window should have filled up"
    _turn(setup, "再见")  # a request after the compaction, whether it came before or after a call
    systems = [r.system for r in provider.chat_requests()]
    assert "- 我用 vim" not in systems[0] and "- 我用 vim" in systems[-1]
    assert "- owl" not in systems[0] and "- owl" in systems[-1]
    assert len(set(systems)) == 2
    last = provider.chat_requests()[-1].messages
    assert not any("<memory_update" in m.content for m in last)
    assert "updates" not in setup.store.load_record().system_prompt


def test_usage_totals_are_kept_per_turn_and_summed_from_the_log_when_missing(world):
    def answer(read: int) -> list[ModelEvent]:
        return [TextDelta("ok"), UsageEvent(Usage(100, 5, read, 0)), StopEvent("end_turn")]

    provider = RecordingProvider([answer(0), answer(80), answer(90)])
    setup = _setup(world, provider)
    _turn(setup)
    _turn(setup)
    assert setup.store.total_usage() == (Usage(200, 10, 80, 0), 2)
    record = setup.store.load_record()
    assert record.usage_totals["cacheReadTokens"] == 80
    setup.store.save_record(record.with_updates(usage_totals=None))  # an older record
    assert setup.store.total_usage() == (Usage(200, 10, 80, 0), 2)  # from the log
    _turn(setup)
    assert setup.store.load_record().usage_totals["modelCalls"] == 3
    assert setup.store.total_usage() == (Usage(300, 15, 170, 0), 3)
