"""The public API: what a program that embeds mini-letta needs, in one import.

`from mini_letta import Session, open_world, create_agent` loads this module on first use
(mini_letta/__init__.py), so the CLI's start-up never pays for it. Everything here is a name
from the core or a few lines over it; the README's "As a library" section is its tutorial and
`tests/unit/test_readme_library.py` runs that example as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, SystemClock
from mini_letta.errors import MiniLettaError
from mini_letta.home import Home
from mini_letta.loop.events import (
    AssistantDelta,
    CompactionEvent,
    MessageEvent,
    ThoughtDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    TurnResult,
)
from mini_letta.loop.setup import TurnOptions
from mini_letta.session import (
    AfterTurn,
    PostTurnJob,
    ReflectionSink,
    Session,
    SessionEvent,
    Spawner,
    SyncRequest,
)
from mini_letta.workspace import World, find_project, new_agent

__all__ = [
    "AfterTurn",
    "AgentRecord",
    "AssistantDelta",
    "CompactionEvent",
    "MessageEvent",
    "MiniLettaError",
    "PostTurnJob",
    "ReflectionSink",
    "Session",
    "SessionEvent",
    "Spawner",
    "SyncRequest",
    "ThoughtDelta",
    "ToolCallEvent",
    "ToolResultEvent",
    "TurnEvent",
    "TurnOptions",
    "TurnResult",
    "World",
    "create_agent",
    "open_world",
]


def open_world(
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    clock: Clock | None = None,
) -> World:
    """The world a library caller acts in: by default this process's environment (its
    MINI_LETTA_HOME or ~/.mini-letta, its model keys), working directory and real clock.

    The one place besides the CLI where the process's environment is read; pass `environ`
    to keep a program's own settings out of it."""
    import os

    env = dict(os.environ if environ is None else environ)
    home = Home.from_env(env)
    folder = Path.cwd() if cwd is None else cwd
    project = find_project(folder, home, env)
    return World(
        home=home, cwd=folder, environ=env, clock=clock or SystemClock(), project=project.dir
    )


def create_agent(
    world: World,
    *,
    name: str | None = None,
    model: str | None = None,
    reflection: Mapping[str, Any] | None = None,
) -> AgentRecord:
    """A new agent with its memory (the default model unless `model` says else), made this
    project's agent; `reflection` is its reflection settings as in agent.json
    (`{"trigger": "step-count", "stepCount": 5}`)."""
    from mini_letta.settings import remember_current

    agent = new_agent(world, name=name, model=model)
    if reflection:
        from mini_letta.reflection.state.settings import save_reflection_settings

        save_reflection_settings(world.home, world.project_dir, agent, reflection, "agent")
    remember_current(world.project_dir, agent.id, "")
    return agent
