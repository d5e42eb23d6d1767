"""A run record as text, with the memory diff its merge made, or (for a run the memory gate
rejected) the gate's reasons and the diff waiting on its branch (for `reflections show`)."""

from __future__ import annotations

from pathlib import Path

from mini_letta.errors import GitError
from mini_letta.home import Home
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.state.records import RunRecord


def describe_run(home: Home, record: RunRecord) -> str:
    lines = [
        f"run:          {record.run_id}",
        f"status:       {record.status} — {record.message}",
        f"trigger:      {record.trigger}",
        f"started:      {record.started_at}",
        f"finished:     {record.finished_at or '(not finished)'}",
        f"model:        {record.model or '-'}",
        f"usage:        {record.usage.get('inputTokens', 0)} in, "
        f"{record.usage.get('outputTokens', 0)} out, {record.steps} step(s)",
        f"commits:      {record.commit_count}",
        f"merge commit: {record.merge_commit or '-'}",
    ]
    if record.budget:
        lines.append(
            f"budget:       window {record.budget.get('contextWindow', '?')}, up to "
            f"{record.budget.get('chunkTokens', '?')} tokens of transcript a run"
        )
    if record.decision:
        lines.append(f"decision:     {record.decision} by a person")
    lines += [f"rejected:     {reason}" for reason in record.reasons]
    lines += [
        f"review:       hunk {v.get('hunk')} of {v.get('path')}: {v.get('decision')} — "
        f"{v.get('reason')}"
        for v in record.review
    ]
    for path, ids in sorted(record.citations.items()):
        lines.append(f"evidence:     {path} cites {', '.join(ids)}")
    for piece in record.slices:
        payload = piece.payload_path or "-"
        if piece.payload_path and not Path(piece.payload_path).exists():
            payload += " (removed by a later run)"
        lines += [
            f"conversation: {piece.conversation_id} lines {piece.start_line}-"
            f"{piece.slice_end_line - 1} ({piece.message_count} message(s)"
            + (f", about {piece.tokens} tokens)" if piece.tokens else ")"),
            f"payload:      {payload}",
        ]
    lines += _skill_lines(home, record)
    transcript = home.reflection_transcript_file(record.agent_id, record.run_id, "messages")
    lines.append(f"transcript:   {transcript if transcript.exists() else '-'}")
    lines.append("")
    lines.append(_diff(home, record))
    return "\n".join(lines).rstrip("\n") + "\n"


_SKILL_VERBS = {"A": "created", "M": "changed", "D": "removed"}


def _skill_lines(home: Home, record: RunRecord) -> list[str]:
    """One line per skill the run created, changed or removed (their diff is in the diff)."""
    tip = record.branch if record.status == "rejected" else record.merge_commit
    if record.status not in ("rejected", "merged") or not tip or not record.parent_head_before:
        return []
    repo = GitRepo(home.memory_dir(record.agent_id))
    try:
        listing = repo.run(
            "diff", "--name-status", "--no-renames", record.parent_head_before, tip, "--", "skills"
        )
    except GitError:
        return []
    lines: list[str] = []
    for row in listing.splitlines():
        status, _, path = row.partition("\t")
        parts = path.split("/")
        if len(parts) == 3 and parts[2] == "SKILL.md":
            verb = _SKILL_VERBS.get(status[:1], "changed")
            lines.append(f"skill:        {verb} {parts[1]} ({path})")
    return lines


def _diff(home: Home, record: RunRecord) -> str:
    if record.status == "rejected" and record.branch and record.parent_head_before:
        repo = GitRepo(home.memory_dir(record.agent_id))
        try:
            return repo.run("diff", "--stat", "-p", record.parent_head_before, record.branch)
        except GitError:
            return f"(the branch {record.branch} is gone)"
    if record.status != "merged" or not record.merge_commit or not record.parent_head_before:
        return "(no memory changes were merged)"
    repo = GitRepo(home.memory_dir(record.agent_id))
    try:
        return repo.run("diff", "--stat", "-p", record.parent_head_before, record.merge_commit)
    except GitError:
        return "(the merged commits are no longer in the memory repository)"
