"""Reflecting one slice reads that slice, not the log beyond it: a backlog of N messages costs
O(N) overall. Counted in messages decoded from the log, never in wall time."""

from __future__ import annotations

from mini_letta.conversations.store import ConversationStore
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.settlement import COUNT_AHEAD
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.watermark import read_reflection_state
from support.reflection_kit import add_turn, message

SLICE_END = 40  # two slices: messages 0-19 and 20-39


class CountingStore(ConversationStore):
    """The real store; it only counts the messages it decodes from the log."""

    decoded = 0

    def iter_from(self, start=0):
        for item in super().iter_from(start):
            self.decoded += 1
            yield item

    def iter_reverse(self):
        for item in super().iter_reverse():
            self.decoded += 1
            yield item

    def at_line(self, line):
        self.decoded += 1
        return super().at_line(line)

    def tail(self, n):
        found = super().tail(n)
        self.decoded += len(found)
        return found


def _decoded_for_one_slice(world, agent, store, turns: int) -> int:
    batch = []  # one append: a log this long is not what is measured
    for n in range(turns):
        batch.append(message(world.clock, "user", f"turn {n}: the standup is at 9:30"))
        batch.append(message(world.clock, "assistant", "Noted."))
    store.append(batch)
    counting = CountingStore(agent.id, store.conversation_id, world.home)
    first = launch_reflection(world, agent, counting, LaunchOptions(launch_line=SLICE_END // 2))
    assert first.ok, first.message
    decoded_first, counting.decoded = counting.decoded, 0
    outcome = launch_reflection(world, agent, counting, LaunchOptions(launch_line=SLICE_END))
    assert outcome.ok, outcome.message
    state = read_reflection_state(store)
    assert state.reflected_through_line == SLICE_END - 1
    assert state.reflected_completed_steps == SLICE_END // 2
    counted = state.counted_lines
    assert SLICE_END <= counted <= store.count()  # the counters cover the log up to here
    steps = [m.role for line, m in store.iter_from(0) if line < counted].count("assistant")
    assert state.total_completed_steps == steps
    assert state.steps_since_last_successful_reflection == steps - SLICE_END // 2
    return decoded_first + counting.decoded


def test_a_slice_decodes_a_bounded_number_of_messages_however_long_the_log(world, agent):
    from mini_letta.workspace import resolve_conversation

    short = resolve_conversation(world, agent, None, new=True)
    long = resolve_conversation(world, agent, None, new=True)
    few = _decoded_for_one_slice(world, agent, short, 30)
    many = _decoded_for_one_slice(world, agent, long, 1_500)
    assert many <= 3 * SLICE_END + 2 * COUNT_AHEAD  # neither the first slice nor the next
    assert few <= many  # the short log is counted to its end; the long one only ahead


def test_settled_counters_stay_exact_across_slices_and_new_turns(world, agent, store):
    for n in range(10):
        add_turn(store, world.clock, f"turn {n}", answer="ok", tools=n % 2)
    first = launch_reflection(world, agent, store, LaunchOptions(launch_line=7))
    assert first.ok
    for n in range(5):
        add_turn(store, world.clock, f"later {n}", answer="ok", tools=1)
    second = launch_reflection(world, agent, store, LaunchOptions(launch_line=store.count() - 4))
    assert second.ok
    steps = [m.role for m in store.all()].count("assistant")
    state = read_reflection_state(store)
    line = state.reflected_through_line
    reflected = [m.role for _, m in store.iter_from(0) if _ <= line].count("assistant")
    assert state.reflected_completed_steps == reflected
    assert state.total_completed_steps == steps
    assert state.steps_since_last_successful_reflection == steps - reflected
