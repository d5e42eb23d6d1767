"""Hand edits told at once when they leave memory over its budget: `memory edit`, an MCP write,
a sync that pulled changes.

A hand edit is never refused for size (a person may mean it), but the next reflection that
grows the same file will be held back by the gate, so the person hears it now, not then. The
budgets are the gate's (`context/memory_budget.py`), as shares of the agent's own model's
window and the reflection settings' percentages.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mini_letta.agents.records import AgentRecord
from mini_letta.context.memory_budget import MemoryBudget, budget_warnings
from mini_letta.home import Home
from mini_letta.llm.catalog import context_window_for
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.mock import MOCK_CONTEXT_WINDOW
from mini_letta.llm.script import SCRIPT_CONTEXT_WINDOW
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.state.settings import load_reflection_settings
from mini_letta.settings import Settings

# The smallest window that holds a reflection (prompt, tools, a small memory, the reserve for
# the agent's steps and a few hundred tokens of transcript, `budget.py`); an agent's window
# below it is a setting for chats, not the model's.
SMALL_WINDOW = 4_096


def agent_memory_budget(
    home: Home, project_dir: Path, agent: AgentRecord, files: Settings | None = None
) -> MemoryBudget:
    """The budgets the gate holds this agent's memory to (`files`: the command's settings)."""
    settings = load_reflection_settings(home, project_dir, agent, files)
    return MemoryBudget.for_window(
        primary_window(agent), settings.system_budget_percent, settings.file_budget_percent
    )


def primary_window(agent: AgentRecord) -> int:
    """The agent's model's window as the gate counts it, without building a provider."""
    if agent.context_window is not None and agent.context_window >= SMALL_WINDOW:
        return agent.context_window
    handle = parse_handle(agent.model)
    if handle.provider == "mock":
        return MOCK_CONTEXT_WINDOW
    if handle.provider == "script":
        return SCRIPT_CONTEXT_WINDOW
    return context_window_for(handle.provider, handle.model)


def over_budget_notices(
    home: Home, project_dir: Path, agent: AgentRecord, paths: Iterable[str]
) -> list[str]:
    """One sentence per budget that the files at `paths` (just edited by hand) now break."""
    touched = [p for p in paths if p.endswith(".md")]
    if not touched:
        return []
    budget = agent_memory_budget(home, project_dir, agent)
    found = budget_warnings(home.memory_dir(agent.id), touched, budget)
    return [f"{line}; a reflection will not add to it until it is shortened" for line in found]


def changed_paths(memory_dir: Path, since: str | None) -> list[str]:
    """The memory files that changed between `since` and HEAD (all of them, when None)."""
    repo = GitRepo(memory_dir)
    if since is None:
        return repo.run("ls-files").split("\n")
    output = repo.run("diff", "--name-only", "--no-renames", since, "HEAD")
    return [line for line in output.split("\n") if line]
