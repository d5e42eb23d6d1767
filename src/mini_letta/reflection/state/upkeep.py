"""Keeping months of reflection runs honest and small: dead runs, old records, loose objects.

A `running` record whose run no longer holds the agent's lease belongs to a process that died
(a run saves its final record before it releases the lease); it is written `interrupted`, with
the last time the run was seen working (its record's or transcript's modification time).
Records are pruned by count and age (`keepRuns`, `keepRunDays`; a run id starts with its UTC
start time, so age is read from the name), never a `running` one, a rejected one awaiting a
decision, or a conversation's newest consumed run (a corrupt watermark is rebuilt from it).
Pruning only starts a tenth past the count, so it reads the records once per many runs. The
memory repository is packed with `git gc --auto` (in the foreground, `memory/repo.py`), which
does nothing until the threshold of loose objects is reached; git is started only then.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from mini_letta import log
from mini_letta.clock import Clock, format_timestamp
from mini_letta.errors import CorruptFileError, GitError, NotFoundError
from mini_letta.home import Home, is_json_file
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.state.lease import running_holder
from mini_letta.reflection.state.records import (
    CONSUMING_STATUSES,
    RunRecord,
    is_run_id,
    load_run_record,
    save_run_record,
)
from mini_letta.reflection.state.settings import ReflectionSettings

PRUNE_SLACK = 10  # prune once the count is a tenth past `keepRuns`
TRANSCRIPT_KINDS = ("messages", "merge")


def with_dead_runs_interrupted(
    home: Home, agent_id: str, records: list[RunRecord], clock: Clock
) -> list[RunRecord]:
    """`records` with every `running` one whose process is gone written `interrupted`."""
    if not any(record.status == "running" for record in records):
        return records
    holder = running_holder(home, agent_id, clock)
    live = holder.run_id if holder is not None else None
    return [
        interrupt_dead_run(home, record)
        if record.status == "running" and record.run_id != live
        else record
        for record in records
    ]


def interrupt_dead_run(home: Home, record: RunRecord) -> RunRecord:
    seen = _last_seen(home, record)
    updated = record.with_updates(
        status="interrupted",
        message=f"The run's process ended before it finished (last active {seen}).",
        finished_at=seen,
    )
    save_run_record(home, updated)
    return updated


def _last_seen(home: Home, record: RunRecord) -> str:
    paths = [home.reflection_record_file(record.agent_id, record.run_id)]
    paths += [
        home.reflection_transcript_file(record.agent_id, record.run_id, kind)
        for kind in TRANSCRIPT_KINDS
    ]
    stamps = [path.stat().st_mtime for path in paths if path.exists()]
    if not stamps:
        return record.started_at
    return format_timestamp(datetime.fromtimestamp(max(stamps), UTC))


def prune_run_records(home: Home, agent_id: str, *, keep: int, keep_days: int, clock: Clock) -> int:
    """Remove the records (and transcripts, manifests) past the newest `keep` or older than
    `keep_days`, sparing the ones the module docstring names; returns how many went."""
    folder = home.reflections_dir(agent_id)
    if not folder.is_dir():
        return 0
    ids = sorted(
        (p.stem for p in folder.iterdir() if is_json_file(p) and is_run_id(p.stem)),
        reverse=True,
    )
    cutoff = (clock.now() - timedelta(days=keep_days)).strftime("%Y%m%d%H%M%S")
    too_many = len(ids) > keep + max(1, keep // PRUNE_SLACK)
    if not too_many and (not ids or ids[-1][:14] >= cutoff):
        return 0
    consumed: set[str] = set()  # conversations whose newest consumed run is already kept
    removed = 0
    for index, run_id in enumerate(ids):
        try:
            record = load_run_record(home, agent_id, run_id)
        except (CorruptFileError, NotFoundError):
            continue  # a damaged record stays for `reflections list` to show
        newest_consumed = record.status in CONSUMING_STATUSES and not (
            {piece.conversation_id for piece in record.slices} <= consumed
        )
        if record.status in CONSUMING_STATUSES:
            consumed.update(piece.conversation_id for piece in record.slices)
        if newest_consumed or _waits(record):
            continue
        if index >= keep or run_id[:14] < cutoff:
            _remove(home, agent_id, run_id)
            removed += 1
    return removed


def _waits(record: RunRecord) -> bool:
    return record.status == "running" or (record.status == "rejected" and not record.decision)


def _remove(home: Home, agent_id: str, run_id: str) -> None:
    paths: list[Path] = [
        home.reflection_transcript_file(agent_id, run_id, kind) for kind in TRANSCRIPT_KINDS
    ]
    paths.append(home.reflection_manifest_file(agent_id, run_id))
    paths.append(home.reflection_record_file(agent_id, run_id))  # last: it names the rest
    for path in paths:
        path.unlink(missing_ok=True)


def tidy_after_run(
    home: Home, agent_id: str, settings: ReflectionSettings, repo: GitRepo, clock: Clock
) -> None:
    """What each run does once it is recorded, still holding the lease: prune, pack."""
    prune_run_records(
        home, agent_id, keep=settings.keep_runs, keep_days=settings.keep_run_days, clock=clock
    )
    pack_memory(repo)


def pack_memory(repo: GitRepo) -> None:
    """`git gc --auto` in the foreground when its rule says it would pack (`pack_due`, read
    from the files: most runs start no git for this); a failure is logged, never raised."""
    try:
        repo.pack_if_due()
    except GitError as exc:
        log.warning("packing the memory repository: %s", exc)


def files_over_budget(tree: Path, file_tokens: int) -> list[tuple[str, int, int]]:
    """(path, tokens, cap) of each `system/` file at or over the per-file budget: the
    reflection task asks for these to be consolidated before anything is added."""
    from mini_letta.errors import FrontmatterError
    from mini_letta.llm.tokens import estimate_tokens
    from mini_letta.memory.files import memory_file_paths, read_memory_bytes

    found: list[tuple[str, int, int]] = []
    for rel in sorted(memory_file_paths(tree, "system")):
        try:  # as every memory reader: a link or an odd file is never opened
            text = read_memory_bytes(tree, rel).decode("utf-8", "replace")
        except (OSError, FrontmatterError):
            continue
        tokens = estimate_tokens(text)
        if tokens >= file_tokens:
            found.append((rel, tokens, file_tokens))
    return found
