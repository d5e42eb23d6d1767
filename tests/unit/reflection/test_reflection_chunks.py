"""A slice bigger than one payload is reflected in ordered chunks within one launch, never cut."""

from __future__ import annotations

from mini_letta.errors import TransientError
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.records import list_run_records
from mini_letta.reflection.run import LaunchOptions, launch_reflection
from mini_letta.reflection.watermark import read_reflection_state
from support.reflection_kit import ScriptedProvider, add_turn

FILLER = "Let us go through the next step of the data migration script together, slowly. " * 3


def _long_conversation(store, clock):
    add_turn(store, clock, "My name is Bob Li.", answer="Hi Bob.")
    for n in range(12):
        add_turn(store, clock, f"{FILLER} ({n})", answer="Sure, next step.")
    add_turn(store, clock, "From now on we use pnpm everywhere.", answer="Noted.")


def test_a_long_slice_is_reflected_in_chunks_each_a_run(world, agent, store):
    _long_conversation(store, world.clock)
    end = store.count()
    outcome = launch_reflection(world, agent, store, LaunchOptions(max_payload_chars=1_200))
    assert outcome.ok and outcome.message.startswith("Reflected in ")
    # the clock stands still, so run ids do not sort by time: order the runs by their slices
    runs = sorted(list_run_records(world.home, agent.id), key=lambda r: r.slices[0].start_line)
    assert len(runs) >= 3 and {r.status for r in runs} <= {"merged", "no_changes"}
    lines = [(r.slices[0].start_line, r.slices[0].slice_end_line) for r in runs]
    assert lines[0][0] == 0 and lines[-1][1] == end  # from the first message to the last
    assert all(a[1] == b[0] for a, b in zip(lines, lines[1:], strict=False))  # no gap
    assert all(r.slices[0].truncated for r in runs[:-1]) and not runs[-1].slices[0].truncated
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text()
    assert "Bob Li" in human and "pnpm" in human
    assert read_reflection_state(store).reflected_through_line == end - 1
    assert outcome.commit_count == sum(r.commit_count for r in runs)


def test_a_failing_chunk_stops_the_launch_and_the_rest_waits(world, agent, store):
    _long_conversation(store, world.clock)
    broken = ScriptedProvider([TransientError("overloaded")])
    outcome = launch_reflection(
        world, agent, store, LaunchOptions(provider=broken, max_payload_chars=1_200)
    )
    assert outcome.status == "failed"
    assert len(list_run_records(world.home, agent.id)) == 1  # no second chunk after a failure
    assert read_reflection_state(store).reflected_through_line is None
    assert GitRepo(world.home.memory_dir(agent.id)).changed_paths() == []
