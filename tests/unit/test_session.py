"""The core `Session`: a turn's events in order, post-turn work after `AfterTurn`, one spawner."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mini_letta.home import project_settings_file
from mini_letta.loop.events import AssistantDelta, MessageEvent, TurnResult
from mini_letta.loop.setup import TurnOptions
from mini_letta.memory.remote import memory_remote_repo, set_remote
from mini_letta.reflection.policy.session import SpawnRequest
from mini_letta.reflection.policy.trigger import BackgroundLaunch
from mini_letta.reflection.state.outbox import post_outcome
from mini_letta.reflection.state.outcome import ReflectionOutcome
from mini_letta.reflection.state.settings import save_reflection_settings
from mini_letta.session import AfterTurn, PostTurnJob, ReflectionSink, Session, SyncRequest
from mini_letta.settings import read_settings, remember_current
from mini_letta.workspace import World, new_agent
from support.agents import fresh_agent
from support.file_events import file_events

EVERY_TURN = {"trigger": "step-count", "stepCount": 1}


@pytest.fixture
def world(home, project, clock) -> World:
    import os

    return World(home=home, cwd=project, environ={"PATH": os.environ["PATH"]}, clock=clock)


class Jobs:
    """A spawner that keeps what it was asked to start (a front end would start a process)."""

    def __init__(self) -> None:
        self.jobs: list[PostTurnJob] = []

    def __call__(self, job: PostTurnJob) -> int:
        self.jobs.append(job)
        return 4000 + len(self.jobs)


def test_a_turn_yields_its_events_then_its_result_then_after_turn(world):
    with Session(world) as session:
        events = list(session.turn("hello"))
    assert isinstance(events[-2], TurnResult) and isinstance(events[-1], AfterTurn)
    assert events[-1].result == events[-2]
    assert events[-1].reflection is None  # reflection is off by default: nothing launched
    assert events[-2].text == "（mock）我听到了：hello"
    logged = [e.message.role for e in events if isinstance(e, MessageEvent)]
    assert logged == ["user", "assistant"]
    assert (
        read_settings(world.home, world.cwd).current_conversation_id(session.agent.id)
        == session.store.conversation_id
    )


def test_a_session_continues_the_projects_conversation_or_starts_one(world):
    with Session(world) as first:
        first.run("one")
    with Session(world) as again:
        assert again.store.conversation_id == first.store.conversation_id
        assert again.run("two").text.endswith("two")
    with Session(world, new=True) as fresh:
        assert fresh.store.conversation_id != first.store.conversation_id
    with Session(world, conversation=first.store.conversation_id) as named:
        assert named.agent.id == first.agent.id
        assert named.store.tail(1)[0][1].content.endswith("two")


def test_without_a_spawner_a_due_reflection_runs_here_and_reaches_the_sink(world):
    agent = new_agent(world, name="librarian")
    save_reflection_settings(world.home, world.cwd, agent, EVERY_TURN, "agent")
    seen: list[object] = []
    sink: ReflectionSink = seen.append
    with Session(world, agent="librarian", on_reflection=sink) as session:
        last = list(session.turn("I prefer tabs for indentation"))[-1]
    assert isinstance(last, AfterTurn) and isinstance(last.reflection, ReflectionOutcome)
    assert last.reflection.status == "merged" and seen == [last.reflection]
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text()
    assert "tabs" in human


def test_background_reflection_goes_through_the_one_spawner(world):
    agent = fresh_agent(world)
    save_reflection_settings(world.home, world.cwd, agent, EVERY_TURN, "agent")
    jobs = Jobs()
    with Session(world, agent=agent.id, reflection="background", spawn=jobs) as session:
        last = list(session.turn("hello"))[-1]
    assert isinstance(last, AfterTurn) and isinstance(last.reflection, BackgroundLaunch)
    assert last.reflection.pid == 4001
    assert jobs.jobs == [SpawnRequest(agent.id, session.store.conversation_id, "step-count")]


def test_settings_choose_background_only_when_there_is_a_spawner(world):
    agent = fresh_agent(world)
    save_reflection_settings(world.home, world.cwd, agent, EVERY_TURN, "agent")
    world.home.root.mkdir(parents=True, exist_ok=True)
    world.home.settings_file.write_text('{"reflectionMode": "background"}', encoding="utf-8")
    jobs = Jobs()
    with Session(world, agent=agent.id, spawn=jobs) as session:
        assert isinstance(session.run("hello"), TurnResult)
    assert [type(job) for job in jobs.jobs] == [SpawnRequest]
    with Session(world, agent=agent.id) as here:  # no spawner: everything runs in this process
        last = list(here.turn("again"))[-1]
    assert isinstance(last, AfterTurn) and isinstance(last.reflection, ReflectionOutcome)


def test_waiting_outcomes_are_delivered_once(world, clock):
    agent = fresh_agent(world)
    waiting = ReflectionOutcome(message="done while you were away", status="merged")
    post_outcome(world.home, agent.id, waiting, clock)
    seen: list[object] = []
    with Session(world, agent=agent.id, on_reflection=seen.append) as session:
        assert session.deliver_waiting() is None
        session.deliver_waiting()
    assert seen == [waiting]


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True, timeout=30)
    return path


def _sync_after_merge(world: World, remote: Path) -> str:
    agent = fresh_agent(world)
    remember_current(world.cwd, agent.id, "")  # the project's agent from now on
    set_remote(memory_remote_repo(world.home.memory_dir(agent.id)), str(remote))
    save_reflection_settings(world.home, world.cwd, agent, {"memorySync": "after-merge"}, "agent")
    return agent.id


def test_a_turn_that_moves_memory_asks_the_spawner_for_a_sync(world, remote):
    agent_id = _sync_after_merge(world, remote)
    jobs = Jobs()
    with Session(world, spawn=jobs, options=TurnOptions()) as session:
        session.run("hello")  # memory did not move
        assert jobs.jobs == []
        session.run("remember that I like tabs")
        assert jobs.jobs == [SyncRequest(agent_id)]


def test_without_a_spawner_memory_syncs_here(world, remote):
    _sync_after_merge(world, remote)
    with Session(world) as session:
        session.run("remember that I like tabs")
    shown = subprocess.run(
        ["git", "-C", str(remote), "show", "refs/heads/main:system/human.md"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert "I like tabs" in shown.stdout


def test_a_failed_sync_is_reported_once(world, tmp_path):
    _sync_after_merge(world, tmp_path / "no-such-remote.git")
    with Session(world) as session:
        session.run("remember that I like tabs")  # the sync fails; recorded for later
    with Session(world) as later:
        failure = later.deliver_waiting()
        assert failure is not None and "no-such-remote" in failure
        assert later.deliver_waiting() is None


def test_an_interrupt_thrown_in_at_an_event_is_recorded_by_the_turn(world):
    """A front end that stops a turn between two events (the editor's cancel) gets what Ctrl-C
    gets: the message kept, `interrupted` recorded, the interrupt back."""
    with Session(world) as session:
        events = session.turn("keep me")
        next(events)  # the user's message
        answer = next(events)
        assert isinstance(answer, AssistantDelta)  # the answer has begun to stream
        with pytest.raises(KeyboardInterrupt):
            events.throw(KeyboardInterrupt())
        record = session.store.load_record()
        logged = [(message.role, message.stop_reason) for message in session.store.all()]
    assert record.last_turn is not None and record.last_turn["stopReason"] == "interrupted"
    assert logged == [("user", None), ("assistant", "interrupted")]  # what was shown is kept


def test_an_interrupt_at_the_users_message_is_recorded_too(world):
    """The first event: Ctrl-C (or a cancel) right after the message was appended."""
    with Session(world) as session:
        events = session.turn("keep me")
        first = next(events)
        assert isinstance(first, MessageEvent) and first.message.role == "user"
        with pytest.raises(KeyboardInterrupt):
            events.throw(KeyboardInterrupt())
        record = session.store.load_record()
        logged = [message.role for message in session.store.all()]
    assert record.last_turn is not None and record.last_turn["stopReason"] == "interrupted"
    assert logged == ["user"]
    with Session(world) as again:  # the lock was released: the conversation goes on
        assert again.run("after").stop_reason == "end_turn"


def test_a_turn_reads_the_settings_files_once_for_the_whole_command(world):
    with Session(world) as earlier:  # the agent and its conversation: an earlier command's
        earlier.run("hello")
    with file_events() as seen, Session(world) as session:
        session.run("hi")
    assert seen.reads(world.home.settings_file) == 1, seen.opened
    # the local file once more inside the locked update that remembers the conversation
    assert seen.reads(project_settings_file(world.project_dir)) <= 2


def test_a_turn_writes_conversation_json_once_per_change_it_must_keep(world):
    with file_events() as first, Session(world) as session:
        session.run("hi")
    record = world.home.conversation_file(session.agent.id, session.store.conversation_id)
    # created at open; the title with the prompt's pin; the reminder's carrier before the
    # model is asked; the last turn and its usage at the end
    assert first.replaces(record) == 4, first.replaced
    with file_events() as second, Session(world) as session:
        session.run("again")
    assert second.replaces(record) == 1  # the last turn only: the pin and the carrier stay
    saved = session.store.load_record()
    assert saved.title == "hi" and saved.last_turn == {"stopReason": "end_turn", "steps": 1}
