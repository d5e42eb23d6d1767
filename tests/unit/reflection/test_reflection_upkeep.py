"""Months of runs: a run whose process died reads `interrupted` with when, old records are
pruned by count and age (never one that waits or the last consumed one), memory is packed."""

from __future__ import annotations

import os
from datetime import timedelta

from mini_letta.clock import format_timestamp
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.lease import acquire_lease
from mini_letta.reflection.state.records import (
    RunRecord,
    SliceInfo,
    list_run_records,
    save_run_record,
)
from mini_letta.reflection.state.upkeep import (
    pack_memory,
    prune_run_records,
    with_dead_runs_interrupted,
)
from support.reflection_kit import add_turn


def _record(world, agent, run_id: str, status: str, conversation: str = "conv-a", **fields):
    piece = SliceInfo(
        conversation_id=conversation,
        start_line=0,
        slice_end_line=2,
        start_message_id=None,
        end_message_id=None,
        message_count=2,
    )
    record = RunRecord(
        run_id=run_id,
        agent_id=agent.id,
        trigger="manual",
        conversation_id=conversation,
        status=status,
        started_at=format_timestamp(world.clock.now()),
        slices=(piece,),
        **fields,
    )
    save_run_record(world.home, record)
    return record


def test_a_running_record_of_a_dead_process_reads_interrupted_with_when(world, agent):
    dead = _record(world, agent, "20261001120000-0000dead", "running")
    path = world.home.reflection_record_file(agent.id, dead.run_id)
    os.utime(path, (1_790_000_000, 1_790_000_000))  # its last sign of life
    (shown,) = with_dead_runs_interrupted(world.home, agent.id, [dead], world.clock)
    assert shown.status == "interrupted"
    assert shown.finished_at == "2026-09-21T14:13:20.000Z"
    assert "last active 2026-09-21T14:13:20.000Z" in shown.message
    (stored,) = list_run_records(world.home, agent.id)
    assert stored.status == "interrupted"  # written, so every reader agrees


def test_the_run_holding_the_lease_stays_running(world, agent):
    live = _record(world, agent, "20261001120000-000a11fe", "running")
    with acquire_lease(world.home, agent.id, live.run_id, world.clock):
        (shown,) = with_dead_runs_interrupted(world.home, agent.id, [live], world.clock)
        assert shown.status == "running"


def test_pruning_keeps_the_newest_the_waiting_and_each_conversations_last_consumed(world, agent):
    now = world.clock.now()

    def run_id(days_ago: int, n: int) -> str:
        return (now - timedelta(days=days_ago)).strftime("%Y%m%d%H%M%S") + f"-{n:08x}"

    old_consumed = _record(world, agent, run_id(90, 1), "merged", conversation="conv-old")
    old_waiting = _record(world, agent, run_id(80, 2), "rejected")
    old_failed = _record(world, agent, run_id(70, 3), "failed")
    recent = [_record(world, agent, run_id(5, 10 + n), "no_changes") for n in range(30)]
    transcript = world.home.reflection_transcript_file(agent.id, old_failed.run_id, "messages")
    transcript.write_text("{}\n")
    removed = prune_run_records(world.home, agent.id, keep=20, keep_days=30, clock=world.clock)
    kept = {r.run_id for r in list_run_records(world.home, agent.id)}
    assert old_consumed.run_id in kept and old_waiting.run_id in kept
    assert old_failed.run_id not in kept and not transcript.exists()
    newest = sorted(r.run_id for r in recent)[-20:]
    assert set(newest) <= kept
    assert len(kept) == 22 and removed == 11


def test_pruning_waits_until_a_tenth_past_the_count(world, agent):
    for n in range(22):
        _record(world, agent, f"20261001120000-{n:08x}", "no_changes")
    assert prune_run_records(world.home, agent.id, keep=20, keep_days=3650, clock=world.clock) == 0
    _record(world, agent, "20261001120001-00000099", "no_changes")
    assert prune_run_records(world.home, agent.id, keep=20, keep_days=3650, clock=world.clock) == 3


def test_a_run_prunes_by_the_setting(world, agent, store):
    from mini_letta.reflection.state.settings import save_reflection_settings

    save_reflection_settings(world.home, world.cwd, agent, {"keepRuns": 1}, "agent")
    for n in range(4):
        _record(world, agent, f"2026010112000{n}-0000000{n}", "failed")
    add_turn(store, world.clock, "I prefer tabs.", answer="Noted.")
    from mini_letta.agents.registry import load_agent

    agent = load_agent(world.home, agent.id)
    assert launch_reflection(world, agent, store, LaunchOptions()).ok
    assert len(list_run_records(world.home, agent.id)) == 1


def test_memory_is_packed_past_the_threshold(world, agent):
    repo = GitRepo(world.home.memory_dir(agent.id))
    folder = world.home.memory_dir(agent.id)
    for n in range(1_200):
        (folder / f"loose-{n}.txt").write_text(f"loose object {n}\n")
    assert not repo.pack_due()  # a fresh repository: `git gc --auto` would do nothing
    repo.run("add", ".")
    loose_before = _loose(repo)
    assert loose_before > 1_000 and repo.pack_due()
    pack_memory(repo)
    assert _loose(repo) < 100 and not repo.pack_due()


def test_many_packs_make_a_packing_due_as_git_counts_them(world, agent):
    repo = GitRepo(world.home.memory_dir(agent.id))
    packs = repo.path / ".git" / "objects" / "pack"
    packs.mkdir(exist_ok=True)
    for n in range(50):  # git's gc.autoPackLimit, which mini-letta pins
        (packs / f"pack-{n:040x}.pack").write_bytes(b"")
    assert not repo.pack_due()
    (packs / f"pack-{50:040x}.pack").write_bytes(b"")
    assert repo.pack_due()


def _loose(repo: GitRepo) -> int:
    counts = dict(
        line.split(": ") for line in repo.run("count-objects", "-v").splitlines() if ": " in line
    )
    return int(counts["count"])
