"""A slice bigger than the reflection model can take is reflected in ordered chunks within one
launch, each sized in tokens from that model's own window, never cut."""

from __future__ import annotations

import pytest

from mini_letta.context.builder import compaction_threshold
from mini_letta.errors import ReflectionError, TransientError
from mini_letta.llm.mock import MockProvider
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.budget import MAX_CHUNK_TOKENS, reflection_budget
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.run.task import reflection_system_prompt
from mini_letta.reflection.run.tools import RunProvenance, reflection_tools
from mini_letta.reflection.state.records import list_run_records
from mini_letta.reflection.state.watermark import read_reflection_state
from mini_letta.workspace import resolve_conversation
from support.compaction_fakes import RecordingProvider, request_tokens
from support.reflection_kit import ScriptedProvider, add_turn

FILLER = "Let us go through the next step of the data migration script together, slowly. " * 3
FIRST, MIDDLE = "My name is Bob Li.", "我更喜欢用 tabs 缩进"
LAST = "From now on we use pnpm everywhere."
SMALL_WINDOW = 4_096  # room for a few hundred tokens of transcript per run


def _long_conversation(store, clock, turns: int = 8):
    add_turn(store, clock, FIRST, answer="Hi Bob.")
    for n in range(turns):
        add_turn(store, clock, f"{FILLER} ({n})", answer="Sure, next step.")
        if n == turns // 2:
            add_turn(store, clock, MIDDLE, answer="好的。")
    add_turn(store, clock, LAST, answer="Noted.")


def _runs(world, agent):
    # the clock stands still, so run ids do not sort by time: order the runs by their slices
    return sorted(list_run_records(world.home, agent.id), key=lambda r: r.slices[0].start_line)


def _human(world, agent) -> str:
    return (world.home.memory_dir(agent.id) / "system" / "human.md").read_text()


class FailsInRun:
    """The mock, except that the `run`-th reflection run (1-based) fails at its first call."""

    def __init__(self, inner, run: int) -> None:
        self.inner, self.run, self.started = inner, run, 0
        self.handle, self.context_window = inner.handle, inner.context_window

    def stream(self, request):
        if all(m.role != "assistant" for m in request.messages):  # a run's first request
            self.started += 1
        if self.started == self.run:
            raise TransientError("overloaded")
        return self.inner.stream(request)


def test_a_small_window_model_reflects_a_long_slice_in_chunks_within_its_budget(
    world, agent, store
):
    _long_conversation(store, world.clock)
    end = store.count()
    model = RecordingProvider(MockProvider(context_window=SMALL_WINDOW))
    outcome = launch_reflection(world, agent, store, LaunchOptions(provider=model))
    assert outcome.ok and outcome.message.startswith("Reflected in ")
    runs = _runs(world, agent)
    assert len(runs) >= 3 and {r.status for r in runs} <= {"merged", "no_changes"}
    budget = runs[0].budget
    assert budget["contextWindow"] == SMALL_WINDOW
    assert all(0 < r.slices[0].tokens <= budget["chunkTokens"] for r in runs)
    lines = [(r.slices[0].start_line, r.slices[0].slice_end_line) for r in runs]
    assert lines[0][0] == 0 and lines[-1][1] == end  # from the first message to the last
    assert all(a[1] == b[0] for a, b in zip(lines, lines[1:], strict=False))  # no gap
    assert sum(r.slices[0].message_count for r in runs) == end  # none lost or repeated
    assert all(r.slices[0].truncated for r in runs[:-1]) and not runs[-1].slices[0].truncated
    # every request the model saw fits below its compaction point: nothing was summarised away
    threshold = compaction_threshold(SMALL_WINDOW)
    assert max(request_tokens(r) for r in model.requests) <= threshold
    assert all(r.purpose == "reflection" for r in model.requests)
    human = _human(world, agent)
    assert "Bob Li" in human and "tabs" in human and "pnpm" in human
    assert read_reflection_state(store).reflected_through_line == end - 1
    assert outcome.commit_count == sum(r.commit_count for r in runs)


def test_a_failure_in_chunk_two_leaves_the_watermark_after_chunk_one(world, agent, store):
    _long_conversation(store, world.clock)
    end = store.count()
    model = FailsInRun(MockProvider(context_window=SMALL_WINDOW), run=2)
    outcome = launch_reflection(world, agent, store, LaunchOptions(provider=model))
    assert outcome.status == "failed"
    first, second = _runs(world, agent)  # no third chunk after the failure
    assert first.status == "merged" and second.status == "failed"
    assert second.slices[0].start_line == first.slices[0].slice_end_line
    state = read_reflection_state(store)
    assert state.reflected_through_line == first.slices[0].slice_end_line - 1
    assert state.reflected_through_message_id == first.slices[0].end_message_id
    assert "Bob Li" in _human(world, agent) and "pnpm" not in _human(world, agent)
    assert GitRepo(world.home.memory_dir(agent.id)).changed_paths() == []
    # the next launch goes on from exactly where chunk one stopped, and reaches the end
    healthy = MockProvider(context_window=SMALL_WINDOW)
    again = launch_reflection(world, agent, store, LaunchOptions(provider=healthy))
    assert again.ok
    resumed = [r for r in _runs(world, agent) if r.run_id not in (first.run_id, second.run_id)]
    assert resumed[0].slices[0].start_line == first.slices[0].slice_end_line
    assert read_reflection_state(store).reflected_through_line == end - 1
    assert "pnpm" in _human(world, agent)


def test_a_failing_first_chunk_stops_the_launch_and_the_rest_waits(world, agent, store):
    _long_conversation(store, world.clock)
    broken = ScriptedProvider([TransientError("overloaded")], context_window=SMALL_WINDOW)
    outcome = launch_reflection(world, agent, store, LaunchOptions(provider=broken))
    assert outcome.status == "failed"
    assert len(list_run_records(world.home, agent.id)) == 1  # no second chunk after a failure
    assert read_reflection_state(store).reflected_through_line is None
    assert GitRepo(world.home.memory_dir(agent.id)).changed_paths() == []


def test_a_big_window_takes_the_whole_slice_in_one_run(world, agent, store):
    _long_conversation(store, world.clock)
    outcome = launch_reflection(
        world, agent, store, LaunchOptions(provider=MockProvider(context_window=128_000))
    )
    assert outcome.status == "merged" and not outcome.message.startswith("Reflected in ")
    (run,) = list_run_records(world.home, agent.id)
    assert run.budget["chunkTokens"] == MAX_CHUNK_TOKENS
    assert run.slices[0].message_count == store.count()


def _budget(window: int, memory: str = ""):
    tools = [tool.spec for tool in reflection_tools(RunProvenance())]
    return reflection_budget(
        window,
        system_prompt=reflection_system_prompt(),
        tools=tools,
        memory=memory,
        instruction=None,
        model="ollama/tiny",
    )


def test_the_budget_leaves_room_for_the_prompt_the_memory_and_the_steps():
    small, larger = _budget(8_192), _budget(8_192, memory="- a remembered fact\n" * 200)
    assert small.fixed + small.reserve + small.chunk <= compaction_threshold(8_192)
    assert larger.chunk < small.chunk  # a bigger memory leaves less room for transcript
    assert _budget(32_768).chunk > small.chunk


def test_a_window_too_small_for_any_transcript_names_the_model():
    with pytest.raises(ReflectionError, match=r"reflection model ollama/tiny: .*2000 tokens"):
        _budget(2_000)


def test_an_agent_window_a_local_server_serves_sizes_the_chunks(world, store):
    from mini_letta.workspace import new_agent

    served = new_agent(world, name="served", context_window=SMALL_WINDOW)
    conversation = resolve_conversation(world, served, None, new=True)
    _long_conversation(conversation, world.clock)
    outcome = launch_reflection(world, served, conversation, LaunchOptions())
    assert outcome.ok and outcome.message.startswith("Reflected in ")
    runs = _runs(world, served)
    assert {r.budget["contextWindow"] for r in runs} == {SMALL_WINDOW}
    assert "pnpm" in _human(world, served)
