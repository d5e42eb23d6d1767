"""The agents in a home folder: create, load, find by id or name, rename, delete.

Names are unique within a home, so `--agent NAME` is unambiguous. Writes to one agent's record
go through the agent lock, so two processes renaming or reconfiguring never interleave.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, format_timestamp
from mini_letta.errors import InvalidValueError, NotFoundError
from mini_letta.home import Home, ensure_dir
from mini_letta.ids import new_agent_id
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mini_letta.storage.damaged import Damaged

_NAME_RE = re.compile(r"^[\w][\w .\-]{0,63}$")


class NewAgent(Struct, frozen=True):
    name: str
    model: str
    system: str
    context_window: int | None = None
    base_url: str | None = None
    tools: tuple[str, ...] | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None


def validate_agent_name(name: str) -> str:
    name = name.strip()
    if not _NAME_RE.fullmatch(name) or name.startswith("agent-"):
        raise InvalidValueError(
            f"invalid agent name {name!r}: use 1-64 letters, digits, spaces, '.', '_' or '-', "
            "not starting with 'agent-'"
        )
    return name


def create_agent(home: Home, spec: NewAgent, clock: Clock) -> AgentRecord:
    name = validate_agent_name(spec.name)
    if _find_by_name(home, name) is not None:
        raise InvalidValueError(f"an agent named {name!r} already exists; choose another name")
    record = AgentRecord(
        id=new_agent_id(),
        name=name,
        model=spec.model,
        system=spec.system,
        created_at=format_timestamp(clock.now()),
        context_window=spec.context_window,
        base_url=spec.base_url,
        tools=spec.tools,
        max_output_tokens=spec.max_output_tokens,
        temperature=spec.temperature,
    )
    ensure_dir(home.agent_dir(record.id))
    save_agent(home, record)
    return record


def unique_agent_name(home: Home, base: str) -> str:
    """A free name derived from `base` (a project folder name, say): base, base-2, base-3, ..."""
    cleaned = re.sub(r"[^\w .\-]", "-", base).strip(" .-")[:56] or "agent"
    if cleaned.startswith("agent-"):
        cleaned = "my-" + cleaned
    taken = {agent.name for agent in list_agents(home)}
    candidate, n = cleaned, 1
    while candidate in taken:
        n += 1
        candidate = f"{cleaned}-{n}"
    return candidate


def load_agent(home: Home, agent_id: str) -> AgentRecord:
    path = home.agent_file(agent_id)
    data = load_json(path)
    if data is None:
        raise NotFoundError(f"agent {agent_id} not found (see `mini-letta agents list`)")
    return AgentRecord.from_json(data, path)


def save_agent(home: Home, record: AgentRecord) -> None:
    save_json(home.agent_file(record.id), record.to_json())


def update_agent(
    home: Home, agent_id: str, change: Callable[[AgentRecord], AgentRecord]
) -> AgentRecord:
    """Read-modify-write an agent record under its lock."""
    with exclusive_lock(home.agent_lock(agent_id), what=f"agent {agent_id}"):
        updated = change(load_agent(home, agent_id))
        save_agent(home, updated)
        return updated


def list_agents(home: Home) -> list[AgentRecord]:
    """All agents, oldest first. A corrupt agent.json raises: it is never silently hidden."""
    agents, damaged = scan_agents(home)
    if damaged:
        raise damaged[0].error()
    return agents


def scan_agents(home: Home) -> tuple[list[AgentRecord], list[Damaged]]:
    """All agents, oldest first, and the ones whose agent.json cannot be read."""
    if not home.agents_dir.is_dir():
        return [], []
    entries = sorted(
        (entry.name, home.agent_file(entry.name))
        for entry in home.agents_dir.iterdir()
        if entry.is_dir() and home.agent_file(entry.name).exists()
    )
    from mini_letta.storage.damaged import load_each

    agents, damaged = load_each(entries, lambda agent_id: load_agent(home, agent_id))
    return sorted(agents, key=lambda agent: (agent.created_at, agent.id)), damaged


def find_agent(home: Home, ref: str) -> AgentRecord:
    """An agent by id or by name."""
    ref = ref.strip()
    if ref.startswith("agent-") and home.agent_file(ref).exists():
        return load_agent(home, ref)
    found = _find_by_name(home, ref)
    if found is None:
        raise NotFoundError(f"no agent with id or name {ref!r} (see `mini-letta agents list`)")
    return found


def rename_agent(home: Home, agent_id: str, new_name: str) -> AgentRecord:
    name = validate_agent_name(new_name)
    other = _find_by_name(home, name)
    if other is not None and other.id != agent_id:
        raise InvalidValueError(f"an agent named {name!r} already exists; choose another name")
    return update_agent(home, agent_id, lambda agent: agent.with_updates(name=name))


def delete_agent(home: Home, agent_id: str) -> None:
    import shutil  # only here: its import (bz2, lzma) is measurable in every command's start-up

    load_agent(home, agent_id)
    # Rename first so a half-finished delete never leaves a half-readable agent behind.
    doomed = home.deleted_agent_dir(agent_id)
    home.agent_dir(agent_id).rename(doomed)
    shutil.rmtree(doomed)


def _find_by_name(home: Home, name: str) -> AgentRecord | None:
    for agent in list_agents(home):
        if agent.name == name:
            return agent
    return None
