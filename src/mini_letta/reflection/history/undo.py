"""Undo a merged reflection run: revert what it merged and offer its slice to reflection again.

The revert goes through memfs's `undo_commit` (under the memory lock, refused on a dirty
memory, a conflict changes nothing): one revert of the merge commit, or one per reflection
commit when the merge was a fast-forward. Then each unreflected slice's watermark is rewound to
where it was before the run — the one deliberate way a watermark moves back — and the record is
marked `undone`, so a rebuilt state never counts it as consumed.
"""

from __future__ import annotations

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import ReflectionError
from mini_letta.home import Home
from mini_letta.memory.history import undo_commit
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.state.records import RunRecord, load_run_record, save_run_record
from mini_letta.reflection.state.watermark import (
    ReflectionState,
    count_steps,
    steps_since_last_reflection,
    update_reflection_state,
    with_step_counters,
)
from mini_letta.structs import replace


def undo_reflection_run(home: Home, agent_id: str, run_id: str, clock: Clock) -> list[str]:
    """Revert a merged run; returns the new revert commits, newest last."""
    record = load_run_record(home, agent_id, run_id)
    if record.status != "merged" or not record.merge_commit or not record.parent_head_before:
        raise ReflectionError(
            f"reflection run {run_id} is {record.status}, not merged; there is nothing to undo"
        )
    memory = home.memory_dir(agent_id)
    reverts = [undo_commit(memory, sha) for sha in _commits_to_revert(GitRepo(memory), record)]
    for piece in record.slices:
        if piece.mode == "unreflected":
            _rewind(ConversationStore(agent_id, piece.conversation_id, home), record, clock)
    save_run_record(
        home,
        record.with_updates(
            status="undone",
            message=f"Undone: reverted by {', '.join(sha[:12] for sha in reverts)}; its "
            "messages will be reflected on again.",
            finished_at=record.finished_at or format_timestamp(clock.now()),
        ),
    )
    return reverts


def _commits_to_revert(repo: GitRepo, record: RunRecord) -> list[str]:
    """The merge commit, or (fast-forward) each reflection commit, newest first."""
    merge = str(record.merge_commit)
    parents = repo.run("rev-list", "--parents", "-n1", merge).split()[1:]
    if len(parents) > 1:
        return [merge]
    listed = repo.run("rev-list", f"{record.parent_head_before}..{merge}").split()
    if not listed:
        raise ReflectionError(f"the commits of reflection run {record.run_id} are not in memory")
    return listed


def _rewind(store: ConversationStore, record: RunRecord, clock: Clock) -> None:
    before = (record.watermark_before or {}).get(store.conversation_id)

    def change(state: ReflectionState) -> ReflectionState:
        if isinstance(before, dict) and isinstance(before.get("messageId"), str):
            line = before.get("line")
            line = line if isinstance(line, int) else None
            state = replace(
                state,
                reflected_through_message_id=before["messageId"],
                reflected_through_line=line,
                reflected_completed_steps=count_steps(store, 0, (line or 0) + 1),
            )
        else:
            state = replace(
                state,
                reflected_through_message_id=None,
                reflected_through_line=None,
                reflected_completed_steps=0,
            )
        state = replace(state, last_reflection_status="undone")
        return with_step_counters(state, steps_since_last_reflection(store, state))

    update_reflection_state(store, change, clock=clock)
