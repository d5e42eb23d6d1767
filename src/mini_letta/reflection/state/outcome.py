"""What a reflection launch reports: a finished run's status, a skipped launch's reason, or
(for automatic launches) `Queued` behind the run in progress.

Every status and skip reason has one sentence, defined here and nowhere else, so the CLI, the
run records and the post-turn line all say the same thing. Only `merged` and
`no_changes` consume the slice; `no_payload` is a success too, as there was nothing to do.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from mini_letta.storage.fields import optional_int, optional_str, require_str
from mini_letta.structs import Struct

Status = Literal[
    "merged",
    "no_changes",
    "dirty_uncommitted",
    "failed",
    "parent_dirty",
    "merge_conflict",
    "not_merged",
    "rejected",
]
RunTrigger = Literal["manual", "step-count", "compaction-event"]
AutoTrigger = Literal["step-count", "compaction-event"]
SkipReason = Literal["no_payload", "parent_dirty", "busy", "memory_not_ready", "error"]
STATUSES: tuple[str, ...] = get_args(Status)
SKIP_REASONS: tuple[str, ...] = get_args(SkipReason)


def outcome_json(
    message: str,
    trigger: RunTrigger,
    conversation_id: str | None,
    *,
    kind: dict[str, bool],
    status: Status | None = None,
    skip_reason: SkipReason | None = None,
    run_id: str | None = None,
) -> dict[str, Any]:
    """The one JSON shape of every launch's outcome (a run, a skip, a queued or a detached
    launch): `kind` is `launched` and the flag that says which, the fields after it are common
    to all; a kind's own fields follow."""
    return {
        **kind,
        "status": status,
        "skipReason": skip_reason,
        "message": message,
        "runId": run_id,
        "trigger": trigger,
        "conversationId": conversation_id,
    }


RUN_TRIGGERS: tuple[str, ...] = get_args(RunTrigger)
CONSUMING: tuple[Status, ...] = ("merged", "no_changes")

RETRY = "this slice will be offered again next time"


def status_message(status: Status, *, commits: int = 0, detail: str = "") -> str:
    """The one sentence for a finished run's status (`detail` adds the specific cause)."""
    if status == "merged":
        return f"Merged {commits} reflection commit(s)."
    if status == "no_changes":
        return "No memory changes were needed."
    because = f" ({detail})" if detail else ""
    if status == "dirty_uncommitted":
        return (
            f"The reflection agent left edits it did not commit{because}; nothing was merged "
            f"and {RETRY}."
        )
    if status == "failed":
        return f"The reflection did not finish{because}; nothing was merged and {RETRY}."
    if status == "parent_dirty":
        return (
            f"Memory got uncommitted changes during the reflection{because}; nothing was merged "
            f"and {RETRY}."
        )
    if status == "merge_conflict":
        return (
            f"The reflection's edits conflict with newer memory changes{because}; the merge was "
            f"aborted and {RETRY}."
        )
    if status == "rejected":
        return detail or "The memory gate held the run back."
    return (
        f"The primary agent reviewed the reflection but did not merge it{because}; memory is "
        f"unchanged and {RETRY}."
    )


def refusal_fix(status: str | None, skip_reason: str | None, run_id: str | None) -> str | None:
    """The command that fixes a refusal the next run would repeat (the slice stays where it
    is until then), or None when a later run may well succeed by itself."""
    if status == "rejected" and run_id:
        return (
            f"`mini-letta reflections show {run_id}` says why; `mini-letta reflections accept "
            f"{run_id}` merges it anyway"
        )
    if "parent_dirty" in (status, skip_reason):
        return (
            "`mini-letta memory status` lists the uncommitted changes; commit or discard them "
            'with git (`git -C "$(mini-letta memory path)" …`)'
        )
    if skip_reason == "memory_not_ready":
        return "`mini-letta memory recover`"
    return None


def busy_message(holder: str, then: str) -> str:
    """Another run holds the lease; `holder` says which ("" when it is not known)."""
    which = f" ({holder})" if holder else ""
    return f"Another reflection of this agent is running{which}; {then}"


def skip_message(reason: SkipReason, detail: str = "") -> str:
    if reason == "no_payload":
        return "No new messages to reflect on."
    if reason == "parent_dirty":
        return (
            f"Memory has uncommitted changes ({detail}); commit or discard them, then reflect "
            "again."
        )
    if reason == "busy":
        return busy_message(detail, "try again when it finishes.")
    if reason == "error":
        return f"The reflection could not start ({detail}); it will be tried again later."
    return f"{detail}."


class ReflectionOutcome(Struct, frozen=True):
    """The result of `launch_reflection`: either a run (`status`) or a skip (`skip_reason`)."""

    message: str
    status: Status | None = None
    skip_reason: SkipReason | None = None
    run_id: str | None = None
    trigger: RunTrigger = "manual"
    conversation_id: str | None = None
    commit_count: int = 0
    merge_commit: str | None = None
    payload_path: str | None = None
    record_path: str | None = None
    consecutive_failures: int = 0
    lost_watermarks: tuple[str, ...] = ()  # conversations replayed from the start (id gone)
    told_before: bool = False  # an automatic run's refusal that was already told (refusal.py)

    @property
    def launched(self) -> bool:
        return self.status is not None

    @property
    def ok(self) -> bool:
        """Merged, no changes needed, or nothing to do: the exit-0 outcomes."""
        return self.status in CONSUMING or self.skip_reason == "no_payload"

    @property
    def fix(self) -> str | None:
        """The command that fixes this refusal, when the next run would repeat it."""
        return refusal_fix(self.status, self.skip_reason, self.run_id)

    @property
    def worth_reporting(self) -> bool:
        """For automatic runs: everything but the repeats of a failure streak or of a refusal
        already told (each is reported once)."""
        if self.ok or self.skip_reason == "busy":
            return True
        if self.fix is not None:
            return not self.told_before
        return self.consecutive_failures <= 1

    def to_json(self) -> dict[str, Any]:
        return {
            **outcome_json(
                self.message,
                self.trigger,
                self.conversation_id,
                kind={"launched": self.launched},
                status=self.status,
                skip_reason=self.skip_reason,
                run_id=self.run_id,
            ),
            "commitCount": self.commit_count,
            "mergeCommit": self.merge_commit,
            "payloadPath": self.payload_path,
            "consecutiveFailures": self.consecutive_failures,
            "watermarkLost": list(self.lost_watermarks),
            "fix": self.fix,
            "toldBefore": self.told_before,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReflectionOutcome:
        """The inverse of `to_json` (for outcomes passed between processes); ValueError if bad."""
        status = data.get("status")
        skip = data.get("skipReason")
        trigger = data.get("trigger", "manual")
        if status is not None and status not in STATUSES:
            raise ValueError(f"status {status!r} is not a reflection status")
        if skip is not None and skip not in SKIP_REASONS:
            raise ValueError(f"skipReason {skip!r} is not a skip reason")
        if (status is None) == (skip is None):
            raise ValueError("exactly one of status and skipReason must be set")
        if trigger not in RUN_TRIGGERS:
            raise ValueError(f"trigger {trigger!r} is not a reflection trigger")
        return cls(
            message=require_str(data, "message"),
            status=status,
            skip_reason=skip,
            run_id=optional_str(data, "runId"),
            trigger=trigger,
            conversation_id=optional_str(data, "conversationId"),
            commit_count=optional_int(data, "commitCount", minimum=0) or 0,
            merge_commit=optional_str(data, "mergeCommit"),
            payload_path=optional_str(data, "payloadPath"),
            consecutive_failures=optional_int(data, "consecutiveFailures", minimum=0) or 0,
            lost_watermarks=_str_tuple(data, "watermarkLost"),
            told_before=data.get("toldBefore") is True,
        )


def _str_tuple(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{key} must be a list of strings")
    return tuple(value)


class Queued(Struct, frozen=True):
    """A launch that waits for the running reflection; its outcome goes to the outbox."""

    trigger: AutoTrigger
    conversation_id: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return outcome_json(
            self.message,
            self.trigger,
            self.conversation_id,
            kind={"launched": False, "queued": True},
        )
