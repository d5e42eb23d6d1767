"""A person's decision on a run the memory gate rejected: accept (merge it) or discard it.

A rejected run's commits wait on `reflection-rejected/<run-id>` (`run.rejected_branch`).
Accepting merges that branch under the memory lock, as a merge would (a conflict is aborted and
changes nothing), advances each unreflected slice's watermark to the end of the slice (never
backwards) and records the decision; discarding drops the branch and leaves the slice to be
offered again. Either way the record keeps the gate's reasons.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from mini_letta.clock import Clock
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import ReflectionError
from mini_letta.home import Home, lock_file_for
from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.reflection.run.execute import rejected_branch
from mini_letta.reflection.run.finalise import merge_branch
from mini_letta.reflection.run.settlement import settle_conversation
from mini_letta.reflection.run.worktree import Worktree, check_memory_repo
from mini_letta.reflection.state.records import (
    RunRecord,
    SliceInfo,
    load_run_record,
    save_run_record,
)
from mini_letta.reflection.state.watermark import ReflectionState, Watermark
from mini_letta.storage.locks import exclusive_lock


def accept_rejected_run(home: Home, agent_id: str, run_id: str, clock: Clock) -> RunRecord:
    """Merge a rejected run anyway; returns its updated record."""
    with _deciding(home, agent_id, run_id):
        return _accept(home, agent_id, run_id, clock)


def _deciding(home: Home, agent_id: str, run_id: str) -> AbstractContextManager[None]:
    """One decision per run at a time: a second accept or discard waits, then finds the run
    decided (the record is read again inside) instead of both reporting success."""
    record = lock_file_for(home.reflection_record_file(agent_id, run_id))
    return exclusive_lock(record, what=f"reflection run {run_id}")


def _accept(home: Home, agent_id: str, run_id: str, clock: Clock) -> RunRecord:
    record, parent, branch = _pending(home, agent_id, run_id)
    problem = check_memory_repo(parent)
    if problem is not None:
        raise ReflectionError(problem)
    base = record.parent_head_before or parent.head_sha()
    worktree = Worktree(run_id, home.memory_worktrees_dir(agent_id), branch, base)
    attempt = merge_branch(parent, worktree)
    if not attempt.merged:
        raise ReflectionError(
            f"reflection run {run_id} could not be merged ({attempt.detail}); memory is unchanged"
        )
    after: dict[str, object] = {}
    for piece in record.slices:
        if piece.mode == "unreflected":
            store = ConversationStore(agent_id, piece.conversation_id, home)
            state = _advance(store, piece, clock)
            after[piece.conversation_id] = {
                "messageId": state.reflected_through_message_id,
                "line": state.reflected_through_line,
            }
    parent.returncode("branch", "-D", branch)
    accepted = record.with_updates(
        status="merged",
        decision="accepted",
        merge_commit=parent.head_sha(),
        watermark_after=after,
        message=f"Accepted by a person after the memory gate rejected it ({record.message}).",
        error=None,
        branch=None,
    )
    save_run_record(home, accepted)
    return accepted


def discard_rejected_run(home: Home, agent_id: str, run_id: str) -> RunRecord:
    """Drop a rejected run's branch; its messages will be reflected on again."""
    with _deciding(home, agent_id, run_id):
        record, parent, branch = _pending(home, agent_id, run_id)
        with lock_memory(parent.path):
            parent.returncode("branch", "-D", branch)
        discarded = record.with_updates(decision="discarded", branch=None)
        save_run_record(home, discarded)
        return discarded


def _pending(home: Home, agent_id: str, run_id: str) -> tuple[RunRecord, GitRepo, str]:
    record = load_run_record(home, agent_id, run_id)
    if record.status != "rejected" or record.decision is not None:
        done = f" and {record.decision}" if record.decision else ""
        raise ReflectionError(
            f"reflection run {run_id} is {record.status}{done}, not waiting for a decision "
            "(only runs the memory gate rejected are)"
        )
    parent = GitRepo(home.memory_dir(agent_id))
    branch = rejected_branch(run_id)
    if parent.returncode("rev-parse", "--verify", "-q", f"refs/heads/{branch}") != 0:
        raise ReflectionError(f"the branch {branch} of reflection run {run_id} is gone")
    return record, parent, branch


def _advance(store: ConversationStore, piece: SliceInfo, clock: Clock) -> ReflectionState:
    last = piece.slice_end_line - 1
    message = store.at_line(last)
    end = Watermark(last, message.id if message is not None else None)
    return settle_conversation(store, "merged", end, clock)
