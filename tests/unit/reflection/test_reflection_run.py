"""A whole reflection run: every status reached for real, the watermark, the lease, leftovers."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import TransientError
from mini_letta.llm.mock import MockProvider
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.launch import launch_reflection, preview_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.run.worktree import create_worktree
from mini_letta.reflection.state.lease import acquire_lease
from mini_letta.reflection.state.records import list_run_records, load_run_record, save_run_record
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.reflection.state.watermark import (
    read_reflection_state,
    steps_since_last_reflection,
)
from mini_letta.workspace import new_agent, resolve_conversation
from support.reflection_kit import (
    NEEDLES,
    SECRETS,
    ScriptedProvider,
    SideEffectProvider,
    add_turn,
    git,
    message,
    respond,
    tool_call,
)

HUMAN = "system/human.md"
CHAPTER = ["帮我看下这个报错", "我更喜欢用 tabs 缩进", "今天我们决定以后一律用 pnpm"]


@pytest.fixture
def parent(world, agent):
    return GitRepo(world.home.memory_dir(agent.id))


def _chat(store, clock, *texts):
    for text in texts:
        add_turn(store, clock, text, answer=f"（mock）我听到了：{text}")


def _launch(world, agent, store, **options):
    return launch_reflection(world, agent, store, LaunchOptions(**options))


def _offered_again(world, agent, store) -> bool:
    """The next run would get the same slice: nothing was consumed."""
    again = preview_reflection(world, agent, store)
    state = read_reflection_state(store)
    return (
        state.reflected_through_message_id is None
        and again is not None
        and (again.start_line, again.slice_end_line) == (0, 6)
    )


def _leftovers(world, agent, parent):
    worktrees = world.home.memory_worktrees_dir(agent.id)
    folders = sorted(p.name for p in worktrees.iterdir()) if worktrees.exists() else []
    branches = git(parent.path, "branch", "--list", "reflection/*").split()
    return folders, branches


def test_the_chapters_walk_through_merges_two_lines_in_one_commit(world, agent, store, parent):
    """One merged run, looked at from every side: memory, the watermark, the run's record and
    transcript; then a second run finds nothing new, the step count restarts from the
    watermark, and a torn state file is rebuilt without replaying what was reflected."""
    _chat(store, world.clock, *CHAPTER)
    before = parent.head_sha()
    outcome = _launch(world, agent, store, instruction="only lasting things")
    assert (outcome.status, outcome.message) == ("merged", "Merged 1 reflection commit(s).")
    human = (parent.path / HUMAN).read_text()
    assert "- Preference: 我更喜欢用 tabs 缩进" in human
    assert "- Decision (2026-10-08): 我们决定以后一律用 pnpm" in human
    assert "报错" not in human
    added = [
        line
        for line in git(parent.path, "diff", before, "HEAD").splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]
    assert added == [
        "+- Preference: 我更喜欢用 tabs 缩进",
        "+- Decision (2026-10-08): 我们决定以后一律用 pnpm",
    ]
    assert git(parent.path, "rev-list", "--count", f"{before}..HEAD").strip() == "1"
    assert _leftovers(world, agent, parent) == ([], [])
    assert not world.home.reflection_lease_file(agent.id).exists()
    state = read_reflection_state(store)
    last = store.at_line(store.count() - 1)
    assert (state.reflected_through_message_id, state.reflected_through_line) == (last.id, 5)
    assert (state.total_completed_steps, state.reflected_completed_steps) == (3, 3)
    assert state.steps_since_last_successful_reflection == 0
    assert state.last_reflection_status == "merged" and state.consecutive_failures == 0

    # the run's record and the reflection agent's own messages
    record = load_run_record(world.home, agent.id, outcome.run_id)
    assert record.trigger == "manual" and record.status == "merged"
    assert record.message == outcome.message and record.commit_count == 1
    assert record.merge_commit == parent.head_sha()
    assert record.watermark_before == {store.conversation_id: None}
    assert record.watermark_after[store.conversation_id]["line"] == 5
    assert record.model == "mock" and record.usage["inputTokens"] > 0 and record.steps == 5
    assert record.instruction == "only lasting things"
    (piece,) = record.slices
    assert (piece.start_line, piece.slice_end_line, piece.message_count) == (0, 6, 6)
    log = world.home.reflections_dir(agent.id) / f"{outcome.run_id}.messages.jsonl"
    roles = [json.loads(line)["role"] for line in log.read_text().splitlines()]
    assert roles[0] == "user" and roles.count("assistant") == 5
    task = json.loads(log.read_text().splitlines()[0])["content"]
    assert "only lasting things" in task and "<memory>" in task
    assert not list(world.home.conversations_dir(agent.id).glob("reflection-*"))

    # a second run after the merge has nothing to do
    assert _launch(world, agent, store).skip_reason == "no_payload"

    # steps since count only after the watermark
    _chat(store, world.clock, "one", "two")
    assert steps_since_last_reflection(store) == 2

    # corrupt state is rebuilt and the run goes on from the watermark, not from the start
    _chat(store, world.clock, "我叫李雷")
    store.files.reflection_state.write_text("{torn")
    outcome = _launch(world, agent, store)
    assert outcome.status == "merged"
    record = load_run_record(world.home, agent.id, outcome.run_id)
    assert record.slices[0].start_line == 6  # not a replay from the start
    assert list(store.dir.glob("reflection-state.json.corrupt-*"))


def test_nothing_new_is_no_payload_and_creates_nothing(world, agent, store, parent):
    outcome = _launch(world, agent, store)
    assert (outcome.skip_reason, outcome.message) == (
        "no_payload",
        "No new messages to reflect on.",
    )
    assert outcome.ok and not outcome.launched
    assert _leftovers(world, agent, parent) == ([], [])
    assert list_run_records(world.home, agent.id) == []
    assert not store.files.reflection_state.exists()


def test_small_talk_only_is_no_changes_and_consumes_the_slice(world, agent, store, parent):
    _chat(store, world.clock, "嗯", "好的")
    head = parent.head_sha()
    outcome = _launch(world, agent, store)
    assert (outcome.status, outcome.message) == ("no_changes", "No memory changes were needed.")
    assert parent.head_sha() == head
    assert read_reflection_state(store).reflected_through_line == 3


def test_a_failing_model_is_failed_and_the_same_slice_is_offered_again(world, agent, store):
    _chat(store, world.clock, *CHAPTER)
    broken = ScriptedProvider([TransientError("server overloaded")])
    first = _launch(world, agent, store, provider=broken)
    assert first.status == "failed" and "server overloaded" in first.message
    assert not first.ok and first.consecutive_failures == 1 and first.worth_reporting
    state = read_reflection_state(store)
    assert state.consecutive_failures == 1 and _offered_again(world, agent, store)
    second = _launch(world, agent, store, provider=ScriptedProvider([TransientError("again")]))
    assert second.consecutive_failures == 2 and not second.worth_reporting
    records = {r.run_id: r for r in list_run_records(world.home, agent.id)}
    assert (
        records[first.run_id].slices[0].start_line
        == records[second.run_id].slices[0].start_line
        == 0
    )
    assert records[first.run_id].slices[0].slice_end_line == 6
    recovered = _launch(world, agent, store)
    assert recovered.status == "merged" and recovered.consecutive_failures == 0


def test_edits_left_uncommitted_are_dirty_uncommitted(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    edit = tool_call("memory", command="insert", path=HUMAN, content="- never committed")
    provider = ScriptedProvider([respond("", edit), respond("all done")])
    head = parent.head_sha()
    outcome = _launch(world, agent, store, provider=provider)
    assert outcome.status == "dirty_uncommitted" and HUMAN in outcome.message
    assert parent.head_sha() == head and "never committed" not in (parent.path / HUMAN).read_text()
    assert _offered_again(world, agent, store)
    assert _leftovers(world, agent, parent) == ([], [])


def test_an_untracked_file_in_memory_skips_before_anything_is_created(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    (parent.path / "draft.md").write_text("mine")
    outcome = _launch(world, agent, store)
    assert outcome.skip_reason == "parent_dirty" and "draft.md" in outcome.message
    assert not outcome.ok
    assert not world.home.memory_worktrees_dir(agent.id).exists()
    assert not store.files.payloads_dir.exists()
    assert list_run_records(world.home, agent.id) == []
    assert (parent.path / "draft.md").read_text() == "mine"


def test_memory_changed_during_the_run_is_parent_dirty(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    touch = {2: lambda: (parent.path / "draft.md").write_text("typed while it ran")}
    outcome = _launch(world, agent, store, provider=SideEffectProvider(MockProvider(), touch))
    assert outcome.status == "parent_dirty" and "draft.md" in outcome.message
    assert _offered_again(world, agent, store)
    assert (parent.path / "draft.md").read_text() == "typed while it ran"


def test_a_merge_conflict_is_redone_on_the_memory_that_won(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)

    def primary_edits_the_same_line():
        path = parent.path / HUMAN
        path.write_text(path.read_text().replace("Nothing yet", "The user is called Li"))
        parent.commit_paths([HUMAN], "primary agent: name")

    provider = SideEffectProvider(MockProvider(), {1: primary_edits_the_same_line})
    outcome = _launch(world, agent, store, provider=provider)
    assert outcome.status == "merged" and outcome.message.startswith("Redone on the newer")
    human = (parent.path / HUMAN).read_text()
    assert "The user is called Li" in human and "tabs" in human  # both edits kept
    statuses = sorted(r.status for r in list_run_records(world.home, agent.id))
    assert statuses == ["merge_conflict", "merged"]
    assert not parent.is_dirty() and _leftovers(world, agent, parent) == ([], [])
    assert not _offered_again(world, agent, store)


def test_explicit_merge_done_by_the_primary_agent(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    settings = ReflectionSettings(merge="explicit", merge_instructions="只合并偏好和决定")
    outcome = _launch(world, agent, store, settings=settings)
    assert (outcome.status, outcome.message) == ("merged", "Merged 1 reflection commit(s).")
    review = world.home.reflections_dir(agent.id) / f"{outcome.run_id}.merge.jsonl"
    lines = [json.loads(line) for line in review.read_text().splitlines()]
    assert "只合并偏好和决定" in lines[0]["content"] and "<diff>" in lines[0]["content"]
    assert any(c["name"] == "reflection_merge" for m in lines for c in m.get("toolCalls", []))
    assert "tabs" in (parent.path / HUMAN).read_text()


def test_explicit_merge_not_done_leaves_memory_and_the_watermark(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    head = parent.head_sha()
    declines = ScriptedProvider([respond("I would rather not merge this.")])
    outcome = _launch(
        world, agent, store, settings=ReflectionSettings(merge="explicit"), merge_provider=declines
    )
    assert outcome.status == "not_merged" and "rather not merge" in outcome.message
    assert parent.head_sha() == head and _offered_again(world, agent, store)
    assert _leftovers(world, agent, parent) == ([], [])


def test_a_message_appended_during_the_run_stays_unreflected(world, agent, store):
    _chat(store, world.clock, *CHAPTER)
    late = message(world.clock, "user", "我叫李雷")

    provider = SideEffectProvider(MockProvider(), {2: lambda: store.append(late)})
    assert _launch(world, agent, store, provider=provider).status == "merged"
    state = read_reflection_state(store)
    assert state.reflected_through_line == 5
    assert state.steps_since_last_successful_reflection == 0
    assert store.at_line(6).id == late.id
    assert _launch(world, agent, store).status == "merged"
    assert read_reflection_state(store).reflected_through_line == 6


def test_the_watermark_never_moves_backwards(world, agent, store):
    _chat(store, world.clock, *CHAPTER)

    def someone_reflected_further():  # e.g. a state written by a newer, faster run
        _chat(store, world.clock, "嗯")
        last = store.count() - 1
        data = {
            "schemaVersion": 1,
            "reflectedThroughMessageId": store.at_line(last).id,
            "reflectedThroughLine": last,
        }
        store.files.reflection_state.write_text(json.dumps(data))

    provider = SideEffectProvider(MockProvider(), {2: someone_reflected_further})
    assert _launch(world, agent, store, provider=provider).status == "merged"
    assert read_reflection_state(store).reflected_through_line == 7


def test_a_second_launch_while_one_runs_is_busy(world, agent, store):
    _chat(store, world.clock, *CHAPTER)
    with acquire_lease(world.home, agent.id, "20261008160000-00000001", world.clock):
        outcome = _launch(world, agent, store)
    assert outcome.skip_reason == "busy" and "20261008160000-00000001" in outcome.message
    assert not outcome.ok


def test_a_crashed_runs_leftovers_are_cleaned_and_its_record_marked(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    crashed = "20261008150000-0000dead"
    wt = create_worktree(parent, world.home.memory_worktrees_dir(agent.id), crashed)
    (wt.path / HUMAN).write_text("half-written")
    store.files.payloads_dir.mkdir()
    (store.files.payloads_dir / f"{crashed}.json").write_text("{}")
    first = _launch(world, agent, store, provider=ScriptedProvider([TransientError("x")]))
    record = load_run_record(world.home, agent.id, first.run_id)
    save_run_record(world.home, record.with_updates(run_id=crashed, status="running"))
    world.home.reflection_lease_file(agent.id).write_text(
        json.dumps(
            {
                "schemaVersion": 1,
                "runId": crashed,
                "pid": 999_999_999,
                "host": __import__("socket").gethostname(),
                "startedAt": "2026-10-08T15:00:00.000Z",
                "expiresAt": "2026-10-09T15:00:00.000Z",
            }
        )
    )
    create_worktree(parent, world.home.memory_worktrees_dir(agent.id), crashed)
    outcome = _launch(world, agent, store)
    assert outcome.status == "merged"
    assert load_run_record(world.home, agent.id, crashed).status == "interrupted"
    assert _leftovers(world, agent, parent) == ([], [])
    assert sorted(p.name for p in store.files.payloads_dir.iterdir()) == [f"{outcome.run_id}.json"]


@pytest.mark.parametrize("setup", ["detached-elsewhere", "no-main"])
def test_memory_not_on_main_is_a_clear_skip(world, agent, store, parent, setup):
    _chat(store, world.clock, *CHAPTER)
    if setup == "detached-elsewhere":
        path = parent.path / HUMAN
        path.write_text(path.read_text() + "x\n")
        parent.commit_paths([HUMAN], "second")
        git(parent.path, "checkout", "-q", "--detach", "HEAD~1")
    else:
        git(parent.path, "branch", "-m", "main", "master")
    outcome = _launch(world, agent, store)
    assert outcome.skip_reason == "memory_not_ready" and str(parent.path) in outcome.message
    assert not outcome.ok and list_run_records(world.home, agent.id) == []


def test_detached_head_at_main_is_reattached_and_the_run_goes_on(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    git(parent.path, "checkout", "-q", "--detach", "main")
    assert _launch(world, agent, store).status == "merged"
    assert parent.current_branch() == "main"


def test_a_model_that_never_stops_is_failed_after_the_step_bound(world, agent, store):
    _chat(store, world.clock, *CHAPTER)
    looping = ScriptedProvider([respond("", tool_call("memory_list", n)) for n in range(10)])
    outcome = _launch(world, agent, store, provider=looping, max_steps=3)
    assert outcome.status == "failed" and "within 3 steps" in outcome.message


def test_an_interrupt_cleans_up_and_propagates(world, agent, store, parent):
    _chat(store, world.clock, *CHAPTER)
    with pytest.raises(KeyboardInterrupt):
        _launch(world, agent, store, provider=ScriptedProvider([KeyboardInterrupt()]))
    assert _leftovers(world, agent, parent) == ([], [])
    assert not world.home.reflection_lease_file(agent.id).exists()
    (record,) = list_run_records(world.home, agent.id)
    assert record.status == "interrupted" and _offered_again(world, agent, store)


def test_planted_secrets_never_reach_the_payload_the_agent_or_memory(world, agent, store, parent):
    for secret in SECRETS:
        _chat(store, world.clock, f"我更喜欢用 tabs 缩进，我的凭据是 {secret}")
        _chat(store, world.clock, f"From now on deploy with {secret}")
    outcome = _launch(world, agent, store)
    assert outcome.status == "merged"
    history = git(parent.path, "log", "-p", "--all")
    files = "".join(p.read_text() for p in parent.path.rglob("*.md"))
    folder = world.home.reflections_dir(agent.id)
    transcripts = "".join(p.read_text() for p in folder.glob("*.jsonl"))
    payload = (store.files.payloads_dir / f"{outcome.run_id}.json").read_text()
    for text in (history, files, transcripts, payload):
        assert [needle for needle in NEEDLES if needle in text] == []
    assert "<redacted:" in files


def test_a_tiny_chat_window_does_not_starve_the_reflection(world, store):
    small = new_agent(world, name="tiny", context_window=1200)
    conversation = resolve_conversation(world, small, None, new=True)
    _chat(conversation, world.clock, *CHAPTER)
    assert _launch(world, small, conversation).status == "merged"


def test_the_lease_is_renewed_after_a_minute_of_work_not_at_every_step(world, agent, store):
    _chat(store, world.clock, *CHAPTER)
    lease = world.home.reflection_lease_file(agent.id)
    seen: list[str] = []

    def look():
        seen.append(json.loads(lease.read_text())["expiresAt"])

    effects = {1: look, 2: lambda: world.clock.advance(10), 3: look}
    effects.update({4: lambda: world.clock.advance(61), 5: look})
    provider = SideEffectProvider(MockProvider(), effects)
    assert _launch(world, agent, store, provider=provider).status == "merged"
    taken, after_a_quick_step, after_a_minute = seen
    assert after_a_quick_step == taken  # ten seconds of work wrote nothing
    assert after_a_minute > taken  # a minute did
