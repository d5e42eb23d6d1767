"""`mini-letta status`: the agent, its memory and its reflection health in one view."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from mini_letta.cli.fit import wrap_lines
from mini_letta.cli.options import agent_option
from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.palace.doctor_state import DoctorCount
    from mini_letta.reflection.api import AgentHealth


@click.command("status")
@agent_option
@click.option(
    "--output-format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def status(agent: str | None, fmt: str) -> None:
    """Show the agent, its models, memory, reflection settings and the last reflection run."""
    from mini_letta.cli.world import current_world
    from mini_letta.reflection.api import gather_health, load_settings
    from mini_letta.settings import read_settings
    from mini_letta.workspace import find_project, resolve_agent

    world = current_world()
    project = find_project(world.cwd, world.home, world.environ)
    record = resolve_agent(world, agent, check_memory=False)
    files = read_settings(world.home, world.project_dir)  # each settings file read once
    settings = load_settings(world.home, world.project_dir, record, files)
    current = files.current_conversation_id(record.id)
    from mini_letta.palace.doctor_state import load_doctor_count
    from mini_letta.sync.state import files_needing_review

    health = gather_health(world.home, record, settings, world.clock, current)
    review = files_needing_review(world.home, record.id, world.clock)
    skills = _skill_counts(record.id)
    doctor = load_doctor_count(world.home, record.id)
    if fmt == "json":
        data = {
            **health_json(health, review),
            "skills": skills,
            "doctor": doctor_json(health, doctor),
            "project": {"path": str(project.dir), "reason": project.reason.name.lower()},
        }
        echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        lines = health_lines(health, review)
        lines.insert(3, _skills_line(skills))
        lines.append(doctor_line(health, doctor))
        lines.insert(0, f"project     {project.dir} ({project.reason.value})")
        for line in wrap_lines(lines, current_terminal().columns(), 12):
            echo(line)


def _skill_counts(agent_id: str) -> dict[str, int]:
    from mini_letta.cli.commands.skills import find_catalog

    catalog = find_catalog(agent_id)
    return {**catalog.counts(), "invalid": len(catalog.invalid), "hidden": len(catalog.shadowed)}


def _skills_line(counts: dict[str, int]) -> str:
    total = counts["memory"] + counts["project"] + counts["user"]
    parts = f"memory {counts['memory']}, project {counts['project']}, user {counts['user']}"
    extra = "".join(f", {counts[key]} {key}" for key in ("invalid", "hidden") if counts[key])
    return f"skills      {total} ({parts}{extra}; `mini-letta skills list`)"


def _doctor_current(health: AgentHealth, doctor: DoctorCount) -> bool:
    """The count describes memory as it is: the same commit, and no edit since."""
    return doctor.head == health.memory.head and doctor.clean and health.memory.clean


def doctor_json(health: AgentHealth, doctor: DoctorCount | None) -> dict[str, Any] | None:
    """The last `memory doctor`'s count (status never runs the audit itself: it would load the
    secret scanner); `current` says whether memory is still what it looked at."""
    if doctor is None:
        return None
    return {"counts": doctor.counts, "total": doctor.total, "head": doctor.head,
            "checkedAt": doctor.checked_at, "current": _doctor_current(health, doctor)}  # fmt: skip


def doctor_line(health: AgentHealth, doctor: DoctorCount | None) -> str:
    if doctor is None:
        return "doctor      not run yet (`mini-letta memory doctor`)"
    counts = doctor.counts
    found = (
        f"{doctor.total} finding(s): {counts.get('severe', 0)} severe, "
        f"{counts.get('warning', 0)} warning(s), {counts.get('info', 0)} info"
    )
    if _doctor_current(health, doctor):
        return f"doctor      {found} (`mini-letta memory doctor` lists them)"
    return (
        f"doctor      {found} at {(doctor.head or 'no commits')[:7]}; memory has changed since "
        "(`mini-letta memory doctor` checks again)"
    )


def health_json(health: AgentHealth, review: tuple[str, ...]) -> dict[str, Any]:
    run = health.last_run
    return {
        "agent": {"id": health.agent.id, "name": health.agent.name, "model": health.agent.model},
        "reflectionModel": health.reflection_model,
        "memory": {
            "path": health.memory.path,
            "head": health.memory.head,
            "clean": health.memory.clean,
            "uncommittedChanges": health.memory.changes,
            "needsReview": list(review),
        },
        "reflection": health.settings.to_json(),
        "lastRun": None if run is None else {
            "runId": run.run_id,
            "status": run.status,
            "message": run.message,
            "trigger": run.trigger,
            "startedAt": run.started_at,
            "finishedAt": run.finished_at,
            "error": run.error,
            "reasons": list(run.reasons),  # the memory gate's, for a rejected run
        },
        "running": None if health.running is None else {
            "runId": health.running.run_id,
            "pid": health.running.pid,
            "startedAt": health.running.started_at,
        },
        "queued": None if health.queued is None else {
            "trigger": health.queued.trigger,
            "conversationId": health.queued.conversation_id,
            "queuedAt": health.queued.queued_at,
        },
        "conversations": [
            {
                "id": c.conversation_id,
                "title": c.title,
                "current": c.current,
                "messages": c.messages,
                "stepsSinceReflection": c.steps_since_reflection,
                "stepsAtLeast": c.steps_capped,
                "stepsNeeded": c.steps_needed,
                "consecutiveFailures": c.consecutive_failures,
                "lastStatus": c.last_status,
                "nextRetryAt": c.next_retry_at,
                "backlogMessages": c.backlog_messages,
                "backlogSlices": c.backlog_slices,
                "refusalFix": c.refusal_fix,
            }
            for c in health.conversations
        ],
    }  # fmt: skip


def health_lines(health: AgentHealth, review: tuple[str, ...]) -> list[str]:
    agent, memory, settings = health.agent, health.memory, health.settings
    lines = [f"agent       {agent.name} ({agent.id})"]
    same = " (the agent's)" if health.reflection_model == agent.model else ""
    lines.append(f"models      {agent.model}; reflection: {health.reflection_model}{same}")
    state = "clean" if memory.clean else f"{memory.changes} uncommitted change(s)"
    lines.append(f"memory      {(memory.head or 'no commits')[:7]}, {state} ({memory.path})")
    if review:
        lines.append(f"            needs review after a sync: {', '.join(review)}")
    when = {
        "off": "off",
        "step-count": f"every {settings.step_count} steps",
        "compaction-event": "after a compaction",
    }[settings.trigger]
    lines.append(f"reflection  {when}; merge {settings.merge}; memory sync {settings.memory_sync}")
    run = health.last_run
    if run is None:
        lines.append("last run    none yet")
    else:
        detail = f" — {run.message}" if run.message else ""
        lines.append(f"last run    {run.run_id}: {run.status}{detail}")
    if health.running is not None:
        held = health.running
        lines.append(f"running     {held.run_id} (pid {held.pid}) since {held.started_at}")
    if health.queued is not None:
        lines.append(
            f"queued      a {health.queued.trigger} launch for {health.queued.conversation_id}"
        )
    for c in health.conversations:
        mark = "*" if c.current else " "
        steps = f"{'≥' if c.steps_capped else ''}{c.steps_since_reflection}"
        parts = [f"{c.messages} messages", f"{steps} step(s) since reflection"]
        if settings.trigger == "step-count":
            parts[-1] += f" (reflects at {c.steps_needed})"
        if c.backlog_messages:
            parts.append(
                f"{c.backlog_messages} unreflected message(s), about {c.backlog_slices} slice(s)"
            )
        if c.consecutive_failures:
            parts.append(f"{c.consecutive_failures} failure(s) in a row")
        if c.next_retry_at:
            parts.append(f"next automatic try after {c.next_retry_at}")
        title = f" “{c.title[:40]}”" if c.title else ""
        lines.append(f"{mark} {c.conversation_id}{title}: {', '.join(parts)}")
        if c.refusal_fix:
            lines.append(f"    held back until fixed: {c.refusal_fix}")
    return lines
