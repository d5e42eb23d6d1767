"""Where memory came from, for the palace and the doctor: the line history of main, the run
records, and each commit's run (trailer or merge), read once.

Also the budgets the doctor and the palace measure against (the memory gate's: shares of the
agent's model window) and the doctor's last count, which `status` shows without running it.
"""

from __future__ import annotations

import contextlib

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, format_timestamp
from mini_letta.errors import CorruptFileError, MiniLettaError, StorageError
from mini_letta.home import Home
from mini_letta.memory.repo import GitRepo
from mini_letta.palace.doctor import Finding, Provenance, count_findings, diagnose
from mini_letta.palace.doctor_state import DoctorCount, save_doctor_count
from mini_letta.palace.lines import LineHistory, load_line_history, runs_by_merge
from mini_letta.reflection.gate.check import GateLimits
from mini_letta.reflection.state.records import RunRecord, scan_run_records
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.storage.damaged import Damaged
from mini_letta.structs import Struct
from mini_letta.workspace import World


class Origins(Struct, frozen=True):
    history: LineHistory
    runs: tuple[RunRecord, ...]  # oldest first
    damaged: tuple[Damaged, ...]
    commit_runs: tuple[str | None, ...]  # per history commit: the run that wrote it
    by_id: dict[str, RunRecord]

    def run(self, run_id: str | None) -> RunRecord | None:
        return self.by_id.get(run_id) if run_id is not None else None


def load_origins(home: Home, agent_id: str) -> Origins:
    repo = GitRepo(home.memory_dir(agent_id))
    history = load_line_history(repo)
    records, damaged = scan_run_records(home, agent_id)
    runs = tuple(reversed(records))
    merges = {r.merge_commit: r.run_id for r in runs if r.merge_commit}
    commit_runs = tuple(runs_by_merge(merges, history))
    return Origins(history, runs, tuple(damaged), commit_runs, {r.run_id: r for r in runs})


def build_provenance(origins: Origins) -> Provenance:
    """Per path and line text at HEAD: None when its origin can be shown (a commit outside
    reflection, or a run that cited a message for it), else the run that cited nothing."""
    found: dict[str, dict[str, str | None]] = {}
    for path, texts in origins.history.lines.items():
        lines: dict[str, str | None] = {}
        for text, commit in zip(texts, origins.history.origins[path], strict=True):
            run = origins.commit_runs[commit]
            key = text.strip()
            record = origins.run(run)
            cited = record is not None and bool(record.cited_lines.get(path, {}).get(key))
            blank = run is None or cited
            if lines.get(key, "") is None:
                continue  # one copy of the line with an origin is enough
            lines[key] = None if blank else run
        found[path] = lines
    return Provenance(found)


def memory_limits(world: World, agent: AgentRecord, settings: ReflectionSettings) -> GateLimits:
    """The memory gate's budgets for this agent: shares of its model's window."""
    return GateLimits.for_window(
        primary_window(world, agent), settings.system_budget_percent, settings.file_budget_percent
    )


def primary_window(world: World, agent: AgentRecord) -> int:
    """The agent's model window as reflection sees it; the catalog's when no provider can be
    built here (a missing key)."""
    from mini_letta.reflection.run.setup import side_agent_provider

    try:
        return side_agent_provider(world, agent).context_window
    except MiniLettaError:
        from mini_letta.llm.catalog import context_window_for
        from mini_letta.llm.handles import parse_handle

        handle = parse_handle(agent.model)
        return agent.context_window or context_window_for(handle.provider, handle.model)


def run_doctor(
    home: Home, agent_id: str, limits: GateLimits, clock: Clock, origins: Origins | None = None
) -> list[Finding]:
    """Diagnose the agent's memory and keep the count for `status`."""
    origins = origins if origins is not None else load_origins(home, agent_id)
    memory_dir = home.memory_dir(agent_id)
    findings = diagnose(memory_dir, limits, build_provenance(origins))
    repo = GitRepo(memory_dir)
    head = repo.head_sha_or_none()
    count = DoctorCount(head, not repo.changed_paths(), format_timestamp(clock.now()),
                        count_findings(findings))  # fmt: skip
    with contextlib.suppress(StorageError, CorruptFileError):  # a convenience for `status`
        save_doctor_count(home, agent_id, count)
    return findings
