"""Run records: `agents/<id>/reflections/<run-id>.json`, one per reflection run.

A record is written when a run starts (status `running`) and rewritten when it ends, so a crash
leaves a `running` record that the next run marks `interrupted`. Records are the durable history
that a corrupt reflection-state.json is rebuilt from (`find_consumed_watermark`), so they are
never deleted here. The reflection agent's own messages sit beside each record, in
`<run-id>.messages.jsonl`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mini_letta.clock import Clock, format_timestamp
from mini_letta.errors import CorruptFileError, NotFoundError
from mini_letta.home import Home, is_json_file
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.storage.damaged import Damaged, load_each
from mini_letta.storage.fields import optional_dict, optional_int, optional_str, require_str
from mini_letta.structs import Struct, field, replace

SCHEMA_VERSION = 1
CONSUMING_STATUSES = ("merged", "no_changes")
_RUN_ID = re.compile(r"^\d{14}-[0-9a-f]{8}$")


class SliceInfo(Struct, frozen=True):
    """Which part of a conversation a run reflected on (lines are 0-based, end exclusive)."""

    conversation_id: str
    start_line: int
    slice_end_line: int
    start_message_id: str | None
    end_message_id: str | None
    message_count: int
    mode: str = "unreflected"
    truncated: bool = False
    watermark_lost: bool = False
    payload_path: str | None = None
    tokens: int = 0  # the transcript's estimated tokens in the reflection task

    def to_json(self) -> dict[str, Any]:
        return {
            "conversationId": self.conversation_id,
            "mode": self.mode,
            "startLine": self.start_line,
            "endSnapshotLine": self.slice_end_line,  # the disk name predates `slice_end_line`
            "startMessageId": self.start_message_id,
            "endMessageId": self.end_message_id,
            "messageCount": self.message_count,
            "truncated": self.truncated,
            "watermarkLost": self.watermark_lost,
            "payloadPath": self.payload_path,
            "tokens": self.tokens,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SliceInfo:
        return cls(
            conversation_id=require_str(data, "conversationId", non_empty=True),
            start_line=optional_int(data, "startLine", minimum=0) or 0,
            slice_end_line=optional_int(data, "endSnapshotLine", minimum=0) or 0,
            start_message_id=optional_str(data, "startMessageId"),
            end_message_id=optional_str(data, "endMessageId"),
            message_count=optional_int(data, "messageCount", minimum=0) or 0,
            mode=optional_str(data, "mode") or "unreflected",
            truncated=data.get("truncated") is True,
            watermark_lost=data.get("watermarkLost") is True,
            payload_path=optional_str(data, "payloadPath"),
            tokens=optional_int(data, "tokens", minimum=0) or 0,
        )


class RunRecord(Struct, frozen=True):
    run_id: str
    agent_id: str
    trigger: str
    conversation_id: str
    status: str
    started_at: str
    message: str = ""
    slices: tuple[SliceInfo, ...] = ()
    instruction: str | None = None
    merge_mode: str = "auto"
    commit_count: int = 0
    merge_commit: str | None = None
    parent_head_before: str | None = None
    branch: str | None = None
    watermark_before: dict[str, Any] | None = None
    watermark_after: dict[str, Any] | None = None
    finished_at: str | None = None
    duration_ms: int | None = None
    model: str | None = None
    usage: dict[str, int] = field(default_factory=lambda: {"inputTokens": 0, "outputTokens": 0})
    steps: int = 0
    error: str | None = None
    reasons: tuple[str, ...] = ()  # the memory gate's, when it rejected the run
    review: tuple[dict[str, Any], ...] = ()  # the review model's verdict on each hunk
    citations: dict[str, list[str]] = field(default_factory=dict)  # path -> cited message ids
    cited_lines: dict[str, dict[str, list[str]]] = field(
        default_factory=dict
    )  # path -> line -> ids
    decision: str | None = None  # "accepted" or "discarded" by a person, after a rejection
    budget: dict[str, int] = field(default_factory=dict)  # the model's window, chunk size

    def with_updates(self, **changes: Any) -> RunRecord:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "runId": self.run_id,
            "agentId": self.agent_id,
            "trigger": self.trigger,
            "conversationId": self.conversation_id,
            "status": self.status,
            "message": self.message,
            "slices": [s.to_json() for s in self.slices],
            "instruction": self.instruction,
            "mergeMode": self.merge_mode,
            "commitCount": self.commit_count,
            "mergeCommit": self.merge_commit,
            "parentHeadBefore": self.parent_head_before,
            "branch": self.branch,
            "watermarkBefore": self.watermark_before,
            "watermarkAfter": self.watermark_after,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "durationMs": self.duration_ms,
            "model": self.model,
            "usage": self.usage,
            "steps": self.steps,
            "error": self.error,
            "reasons": list(self.reasons),
            "review": list(self.review),
            "citations": self.citations,
            "citedLines": self.cited_lines,
            "decision": self.decision,
            "budget": self.budget,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], path: Path) -> RunRecord:
        try:
            if data.get("schemaVersion") != SCHEMA_VERSION:
                raise ValueError(f"schemaVersion {data.get('schemaVersion')!r} is not 1")
            slices = data.get("slices") or []
            if not isinstance(slices, list) or not all(isinstance(s, dict) for s in slices):
                raise ValueError("slices must be a list of objects")
            usage = optional_dict(data, "usage") or {}
            return cls(
                run_id=require_str(data, "runId", non_empty=True),
                agent_id=require_str(data, "agentId", non_empty=True),
                trigger=require_str(data, "trigger"),
                conversation_id=require_str(data, "conversationId"),
                status=require_str(data, "status", non_empty=True),
                started_at=require_str(data, "startedAt"),
                message=optional_str(data, "message") or "",
                slices=tuple(SliceInfo.from_json(s) for s in slices),
                instruction=optional_str(data, "instruction"),
                merge_mode=optional_str(data, "mergeMode") or "auto",
                commit_count=optional_int(data, "commitCount", minimum=0) or 0,
                merge_commit=optional_str(data, "mergeCommit"),
                parent_head_before=optional_str(data, "parentHeadBefore"),
                branch=optional_str(data, "branch"),
                watermark_before=optional_dict(data, "watermarkBefore"),
                watermark_after=optional_dict(data, "watermarkAfter"),
                finished_at=optional_str(data, "finishedAt"),
                duration_ms=optional_int(data, "durationMs", minimum=0),
                model=optional_str(data, "model"),
                usage={key: optional_int(usage, key, minimum=0) or 0 for key in usage},
                steps=optional_int(data, "steps", minimum=0) or 0,
                error=optional_str(data, "error"),
                reasons=_strings(data.get("reasons")),
                review=_verdicts(data.get("review")),
                citations={
                    str(path): list(_strings(ids))
                    for path, ids in (optional_dict(data, "citations") or {}).items()
                },
                decision=optional_str(data, "decision"),
                budget={
                    str(key): value
                    for key, value in (optional_dict(data, "budget") or {}).items()
                    if isinstance(value, int) and not isinstance(value, bool)
                },
                cited_lines={
                    str(path): {str(line): list(_strings(ids)) for line, ids in lines.items()}
                    for path, lines in (optional_dict(data, "citedLines") or {}).items()
                    if isinstance(lines, dict)
                },
            )
        except ValueError as exc:
            raise CorruptFileError(path, f"not a run record ({exc})") from exc


def _verdicts(value: Any) -> tuple[dict[str, Any], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ValueError("review must be a list of objects")
    return tuple(dict(item) for item in value)


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("expected a list of strings")
    return tuple(value)


class ConsumedWatermark(Struct, frozen=True):
    message_id: str
    line: int | None
    status: str
    started_at: str | None
    finished_at: str | None


def went_wrong(record: RunRecord) -> bool:
    """A finished run that merged nothing because of a problem (failed, rejected, conflict...).

    `running` is not finished, and `merged`/`no_changes` consumed their slice."""
    return record.status not in (*CONSUMING_STATUSES, "running")


def failure_summary(wrong: list[RunRecord], total: int) -> str:
    """One line counting the runs that went wrong by status, e.g. `2 of 5 run(s) merged
    nothing: 1 failed, 1 rejected`; the reasons are on each run's own line."""
    counts: dict[str, int] = {}
    for record in wrong:
        counts[record.status] = counts.get(record.status, 0) + 1
    by_status = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return (
        f"{len(wrong)} of {total} run(s) merged nothing: {by_status} "
        "(`mini-letta reflections show RUN-ID` shows one in full)"
    )


def is_run_id(text: str) -> bool:
    """True for `YYYYMMDDHHMMSS-<8 hex>`, the shape of a reflection run id."""
    return _RUN_ID.match(text.strip()) is not None


def save_run_record(home: Home, record: RunRecord) -> Path:
    path = home.reflection_record_file(record.agent_id, record.run_id)
    save_json(path, record.to_json())
    return path


def load_run_record(home: Home, agent_id: str, run_id: str) -> RunRecord:
    run_id = run_id.strip()
    if not _RUN_ID.match(run_id):
        raise NotFoundError(
            f"{run_id!r} is not a reflection run id (like 20261008160658-c0ef7940; "
            "see `mini-letta reflections list`)"
        )
    path = home.reflection_record_file(agent_id, run_id)
    data = load_json(path)
    if data is None:
        raise NotFoundError(
            f"no reflection run {run_id} for this agent (see `mini-letta reflections list`)"
        )
    return RunRecord.from_json(data, path)


def list_run_records(home: Home, agent_id: str) -> list[RunRecord]:
    """All run records, newest first; a corrupt one raises (it is never silently hidden)."""
    records, damaged = scan_run_records(home, agent_id)
    if damaged:
        raise damaged[0].error()
    return records


def scan_run_records(home: Home, agent_id: str) -> tuple[list[RunRecord], list[Damaged]]:
    """All run records, newest first, and the ones that cannot be read."""
    folder = home.reflections_dir(agent_id)
    if not folder.is_dir():
        return [], []
    paths = [
        path
        for path in sorted(folder.iterdir(), reverse=True)
        if is_json_file(path) and _RUN_ID.match(path.stem)
    ]
    return load_each(
        ((path.stem, path) for path in paths),
        lambda run_id: load_run_record(home, agent_id, run_id),
    )


def latest_run_record(home: Home, agent_id: str) -> RunRecord | None:
    """The newest run's record, reading only it (run ids sort by time); None before any run."""
    folder = home.reflections_dir(agent_id)
    if not folder.is_dir():
        return None
    for name in sorted(os.listdir(folder), reverse=True):
        path = folder / name
        if is_json_file(path) and _RUN_ID.match(path.stem):
            data = load_json(path)
            if data is not None:
                return RunRecord.from_json(data, path)
    return None


def mark_interrupted(home: Home, agent_id: str, run_id: str, clock: Clock) -> None:
    """Mark the record of a run whose process died (its lease was reaped) as interrupted."""
    try:
        record = load_run_record(home, agent_id, run_id)
    except (NotFoundError, CorruptFileError):
        return
    if record.status != "running":
        return
    save_run_record(
        home,
        record.with_updates(
            status="interrupted",
            message="The run's process ended before it finished; its worktree was cleaned up.",
            finished_at=format_timestamp(clock.now()),
        ),
    )


def find_consumed_watermark(
    home: Home, agent_id: str, conversation_id: str
) -> ConsumedWatermark | None:
    """The furthest watermark a consumed run left in this conversation, from the records.

    Raises CorruptFileError if a record cannot be read, because then the answer is unknown.
    """
    best: ConsumedWatermark | None = None
    best_line = -1
    for record in list_run_records(home, agent_id):
        if record.status not in CONSUMING_STATUSES or record.watermark_after is None:
            continue
        for mark in _watermarks_for(record, conversation_id):
            line = mark.get("line")
            line = line if isinstance(line, int) else -1
            message_id = mark.get("messageId")
            if isinstance(message_id, str) and message_id and line >= best_line:
                best_line = line
                best = ConsumedWatermark(
                    message_id, line, record.status, record.started_at, record.finished_at
                )
    return best


def _watermarks_for(record: RunRecord, conversation_id: str) -> list[dict[str, Any]]:
    """A record's watermarkAfter is {conversationId: {messageId, line}} for every slice."""
    after = record.watermark_after or {}
    mark = after.get(conversation_id)
    return [mark] if isinstance(mark, dict) else []
