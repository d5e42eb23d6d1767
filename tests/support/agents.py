"""Fresh agents for tests whose subject is not creation: each kind of agent is made once per
worker process (a real `new_agent`: agent record, `git init`, first commit) and every test gets a
copy of that home (reflection/evals/homes.py's copy: the template's folders and files listed and
read once, git objects linked, which git never rewrites in place), instead of three git processes
and the record's writes per test.

A copy is the agent `new_agent` would have made in the test's world: same record (id included),
same memory and first commit, created at the same time on the same clock. So a kind is keyed by
everything creation reads: the name, model and context window asked for, and the clock's time.
The test's world must be the suite's layout (`home/` and `project/` side by side, the project
folder named `project`, which names an unnamed agent) with no agent made in it yet.

The templates live in a folder of this process's own, removed when it exits; nothing in them
changes after they are made, and a test only ever changes its copy.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from mini_letta.agents.records import AgentRecord
from mini_letta.home import Home
from mini_letta.reflection.evals.homes import AgentTemplate, copy_template, read_template
from mini_letta.workspace import World
from support.clock import FakeClock

Setup = Callable[[World, AgentRecord], None]
Key = tuple[str | None, str, int | None, datetime, bool, Setup | None]

_made: dict[Key, AgentTemplate] = {}


def fresh_agent(
    world: World,
    *,
    name: str | None = None,
    model: str = "mock",
    context_window: int | None = None,
    current: bool = False,
    setup: Setup | None = None,
) -> AgentRecord:
    """`new_agent(world, name=..., model=..., context_window=...)`, copied; with `current`,
    also the project's current agent, as a project's first `chat` leaves it. `setup` (a
    module-level function, part of the key) runs once on the template after creation: what a
    module's tests all did to the new agent first (a commit to its memory), done once."""
    into = world.home.root.parent
    assert (world.home.root, world.project_dir) == (into / "home", into / "project"), world
    assert not world.home.agents_dir.exists(), "no agent is made in this home yet"
    settings = world.project_dir / ".mini-letta" / "settings.local.json"
    assert not (current and settings.exists()), "the project has no current agent yet"
    key = (name, model, context_window, world.clock.now(), current, setup)
    template = _made.get(key) or _make(key)
    copy_template(template, into, world.environ, world.clock)  # folders listed once, no walk
    return template.agent


def _make(key: Key) -> AgentTemplate:
    from mini_letta.settings import ensure_project_folder, remember_current
    from mini_letta.workspace import new_agent

    name, model, context_window, when, current, setup = key
    root = _folder() / str(len(_made))
    (root / "project").mkdir(parents=True)
    world = World(Home(root / "home"), root / "project", {}, FakeClock(start=when))
    agent = new_agent(world, name=name, model=model, context_window=context_window)
    if current:
        ensure_project_folder(root / "project")
        remember_current(root / "project", agent.id, "")
    if setup is not None:
        setup(world, agent)
    _made[key] = read_template(root, agent)
    return _made[key]


_root: list[Path] = []


def _folder() -> Path:
    if not _root:
        _root.append(Path(tempfile.mkdtemp(prefix="agent-templates-")))
        atexit.register(_remove, _root[0], os.getpid())
    return _root[0]


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # not a forked child leaving
        shutil.rmtree(folder, ignore_errors=True)


def project_agent(world: World) -> AgentRecord:
    """`resolve_or_create_agent(world, None)`: the project's agent, copied in when it has none."""
    from mini_letta.workspace import find_project_agent

    return find_project_agent(world, None) or fresh_agent(world, current=True)
