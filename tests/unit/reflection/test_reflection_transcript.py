"""A run's transcript serves the loop's reads from what it appended: the same as its file says."""

from __future__ import annotations

from mini_letta.conversations.messages import Usage
from mini_letta.conversations.store import ConversationStore
from mini_letta.reflection.run.agent import RunTranscript
from support.reflection_kit import add_turn, message, tool_call

KEY = "sk-proj-" + "Q7x9Lm2Np4Rs6Tv8Wy0Za1Bc3De5Fg7Hj9Kl"


def _reads(store: ConversationStore) -> tuple:
    return (
        store.count(),
        list(store.iter_reverse()),
        list(store.iter_from(0)),
        list(store.iter_from(3)),
        list(store.iter_from(99)),
        store.tail(2),
        store.tail(0),
        store.tail(50),
        [store.at_line(line) for line in (-1, 0, 4, 99)],
        list(store.all()),
        store.by_id(list(store.all())[2].id),
    )


def test_the_transcript_reads_what_its_file_holds(world, agent, clock):
    transcript = RunTranscript(world.home, agent.id, "20261008160658-00000060")
    transcript.start(clock)
    on_disk = ConversationStore(agent.id, "disk", world.home, transcript.files)
    add_turn(transcript, clock, "我更喜欢用 tabs 缩进", answer="好的", tools=1)
    call = tool_call("memory", command="insert", path="system/human.md", content=f"- {KEY}")
    said = message(clock, "assistant", f"saving {KEY}", tool_calls=(call,))
    transcript.append([said, message(clock, "tool", "done", tool_call_id=call.id, name="memory")])
    last = message(clock, "assistant", "ok", usage=Usage(10, 2, 3))
    transcript.append(last)
    assert _reads(transcript) == _reads(on_disk)
    assert KEY not in repr(_reads(transcript))  # kept as written: redacted
    assert transcript.count() == 7
    assert transcript.tail(1)[0][1] is last  # served from memory, not parsed again


def test_a_transcript_started_on_a_log_with_lines_reads_the_file(world, agent, clock):
    run_id = "20261008160658-00000061"
    earlier = RunTranscript(world.home, agent.id, run_id)
    earlier.start(clock)
    add_turn(earlier, clock, "first", answer="one")
    again = RunTranscript(world.home, agent.id, run_id)
    again.start(clock)
    add_turn(again, clock, "second", answer="two")
    on_disk = ConversationStore(agent.id, "disk", world.home, again.files)
    assert again.count() == 4 and _reads(again) == _reads(on_disk)
    stale = RunTranscript(world.home, agent.id, "20261008160658-00000062")
    stale.start(clock)
    add_turn(stale, clock, "kept", answer="yes")
    other = ConversationStore(agent.id, "disk", world.home, stale.files)
    add_turn(other, clock, "written by another", answer="no")  # not the run's own appends
    add_turn(stale, clock, "more", answer="still")
    assert stale.count() == 6 and _reads(stale) == _reads(other)
