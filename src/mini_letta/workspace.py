"""Which agent and conversation a command acts on, from flags and the project's settings.

`World` is everything the core takes from outside — home, working directory, environment,
clock — passed in once so tests drive it all without patching. Resolution rules: `--agent`
picks by id or name, else the project's last agent (if that was deleted: the one other agent
the project used, when there is exactly one). Only a chat creates an agent when there is none
(besides `agents create`); a command that reads never does. `--conversation` picks one,
`--new` starts one, else the agent's current one in this project.

The project is not always the working directory: from a subfolder it is the nearest enclosing
folder with a `.mini-letta/`, else the git work tree's top, else the working directory itself
(`find_project`), so what an agent learns follows the user around the project.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import Enum
from pathlib import Path

from mini_letta import log
from mini_letta.agents.records import AgentRecord
from mini_letta.agents.registry import (
    NewAgent,
    create_agent,
    find_agent,
    unique_agent_name,
)
from mini_letta.clock import Clock
from mini_letta.conversations.registry import create_conversation, open_conversation
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import NoAgentError, NotFoundError
from mini_letta.home import Home, git_marker, project_folder
from mini_letta.llm.handles import parse_handle
from mini_letta.settings import (
    ModelChoice,
    Settings,
    first_mock_agent,
    new_agent_model,
    read_settings,
    remember_current,
)
from mini_letta.structs import Struct

_BASE_PROMPT = Path(__file__).parent / "prompts" / "system.md"


class World(Struct, frozen=True):
    home: Home
    cwd: Path
    environ: Mapping[str, str]
    clock: Clock
    project: Path | None = None  # None: the working directory is the project

    @property
    def project_dir(self) -> Path:
        """Where the project's settings live (`.mini-letta/`); tools still work in `cwd`."""
        return self.cwd if self.project is None else self.project


class ProjectReason(Enum):
    """Why a folder is the project, as `status` says it."""

    MARKER = "it has .mini-letta/"
    GIT = "the top of the git work tree"
    CWD = "the current folder (no .mini-letta/ or git work tree above it)"


class ProjectRoot(Struct, frozen=True):
    dir: Path
    reason: ProjectReason


def find_project(cwd: Path, home: Home, environ: Mapping[str, str]) -> ProjectRoot:
    """The project `cwd` belongs to: the nearest enclosing folder with a `.mini-letta/` (the
    home folder's own is not one), else the nearest git work tree's top, else `cwd`.

    As for git, the walk never goes up into a folder named in GIT_CEILING_DIRECTORIES, so a
    test or a shared machine can fence it in."""
    start = Path(cwd).absolute()
    raw = environ.get("GIT_CEILING_DIRECTORIES", "")
    fences = {os.path.abspath(entry) for entry in raw.split(":") if entry.strip()}
    home_root = home.root.absolute()
    git_top: str | None = None
    # The walk is on strings: a Path per folder and marker was most of a command's lookup.
    folder = str(start)
    while True:
        if folder in fences and folder != str(start):
            break
        marker = os.path.join(folder, _PROJECT_MARKER)
        if os.path.isdir(marker) and not _is_home(Path(marker), home_root):
            return ProjectRoot(dir=Path(folder), reason=ProjectReason.MARKER)
        if git_top is None and os.path.exists(os.path.join(folder, _GIT_MARKER)):
            git_top = folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if git_top is not None:
        return ProjectRoot(dir=Path(git_top), reason=ProjectReason.GIT)
    return ProjectRoot(dir=start, reason=ProjectReason.CWD)


_PROJECT_MARKER = project_folder(Path()).name
_GIT_MARKER = git_marker(Path()).name


def _is_home(marker: Path, home_root: Path) -> bool:
    """`~/.mini-letta` is the default home, not a project's folder: a home has `agents/`.
    Whether `marker` is the home itself is asked of the files (two stats), not by resolving
    both paths, a Python walk of every folder above each (about 0.3 ms a command)."""
    try:
        if marker.samefile(home_root):
            return True
    except OSError:
        pass  # no home folder yet: the marker is a home only if it holds one
    probe = Home(marker)
    return probe.agents_dir.is_dir() or probe.settings_file.is_file()


class ModelSettings(Struct, frozen=True):
    """Optional per-agent model settings beyond the handle, window and URL."""

    tools: tuple[str, ...] | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None


def base_system_prompt() -> str:
    return _BASE_PROMPT.read_text(encoding="utf-8").strip()


def new_agent(
    world: World,
    *,
    name: str | None = None,
    model: str | None = None,
    context_window: int | None = None,
    base_url: str | None = None,
    settings: ModelSettings | None = None,
    memory_remote: str | None = None,
    files: Settings | None = None,
) -> AgentRecord:
    """Create an agent and its memory: a new one, or a clone of `memory_remote` (shared memory).
    `files`: the command's snapshot of the settings files (read here when not given)."""
    from mini_letta.memory.repo import ensure_git_available

    choice = (
        ModelChoice(model)
        if model
        else new_agent_model(files or read_settings(world.home, world.project_dir), world.environ)
    )
    # an unknown handle is refused before anything is created; an alias is kept resolved
    handle = parse_handle(choice.handle).raw
    ensure_git_available(world.environ.get("PATH"))  # so is a machine without git
    extra = settings or ModelSettings()
    spec = NewAgent(
        name=name or unique_agent_name(world.home, world.project_dir.name),
        model=handle,
        system=base_system_prompt(),
        context_window=context_window,
        base_url=base_url,
        tools=extra.tools,
        max_output_tokens=extra.max_output_tokens,
        temperature=extra.temperature,
    )
    agent = create_agent(world.home, spec, world.clock)
    if memory_remote is not None:
        _join_shared_memory(world, agent, memory_remote)
    _create_agent_memory(world.home, agent)
    _announce_model(world.home, agent, choice)
    return agent


def _announce_model(home: Home, agent: AgentRecord, choice: ModelChoice) -> None:
    """Say which model a new agent got when it was picked for it; the offline mock's hint on
    how to choose a real one is said once per home, to a person at a terminal (a script's
    output stays as it was)."""
    if choice.reason is None:
        return
    if choice.handle != "mock":
        log.notice("new agent %s uses %s (%s)", agent.name, choice.handle, choice.reason)
    elif log.to_a_person() and first_mock_agent(home):
        log.notice(
            "new agent %s uses the offline mock model; for a real one set ANTHROPIC_API_KEY, "
            "OPENAI_API_KEY or OLLAMA_HOST, or pass --model (`mini-letta models` lists them)",
            agent.name,
        )


def _join_shared_memory(world: World, agent: AgentRecord, url: str) -> None:
    """Clone the shared memory; an empty remote gets this agent's new memory on first sync."""
    from mini_letta.agents.registry import delete_agent
    from mini_letta.errors import MiniLettaError
    from mini_letta.memory.remote import clone_memory, memory_remote_repo, set_remote
    from mini_letta.memory.repo import init_memory_repo

    memory_dir = world.home.memory_dir(agent.id)
    try:
        if not clone_memory(url, memory_dir, world.environ):
            init_memory_repo(memory_dir)
            set_remote(memory_remote_repo(memory_dir, world.environ), url)
    except MiniLettaError:
        delete_agent(world.home, agent.id)  # no half-made agent is left behind
        raise


def _create_agent_memory(home: Home, agent: AgentRecord) -> None:
    """Make a new agent's memory (kept as it is if cloned): the only place memory is created.
    Its prompt cache gets the files just committed, so the first turn runs no git."""
    from mini_letta.memory.compile import seed_prompt_cache
    from mini_letta.memory.layout import HUMAN_FILE, PERSONA_FILE
    from mini_letta.memory.repo import init_memory_repo

    memory_dir = home.memory_dir(agent.id)
    if not (memory_dir / ".git").exists():
        init_memory_repo(memory_dir)
        seed_prompt_cache(home.prompt_cache_file(agent.id), memory_dir, (PERSONA_FILE, HUMAN_FILE))


def check_agent_memory(home: Home, agent: AgentRecord) -> None:
    from mini_letta.memory.recover import require_memory

    require_memory(home.memory_dir(agent.id), agent.name)


def resolve_agent(
    world: World,
    agent_ref: str | None,
    *,
    check_memory: bool = True,
    settings: Settings | None = None,
) -> AgentRecord:
    """The agent a command acts on; never creates one (NoAgentError when there is none). With
    `check_memory` (commands that read or write memory: compact, reflect, memory ...), an
    agent's lost or broken memory is an error; inspection commands go without. `settings`:
    the command's snapshot of the settings files (read here when not given)."""
    found = find_project_agent(world, agent_ref, settings)
    if found is None:
        raise NoAgentError(world.project_dir)
    if check_memory:
        check_agent_memory(world.home, found)
    return found


def resolve_or_create_agent(
    world: World,
    agent_ref: str | None,
    settings: Settings | None = None,
    *,
    model: str | None = None,
) -> AgentRecord:
    """The agent a chat uses: as `resolve_agent`, but a project without one gets a new agent,
    on `model` (the creating chat's --model) else the default one."""
    if agent_ref is None:  # one read for finding the project's agent and choosing a new one's
        settings = settings or read_settings(world.home, world.project_dir)
    found = find_project_agent(world, agent_ref, settings)
    if found is not None:
        check_agent_memory(world.home, found)
        return found
    from mini_letta.settings import ensure_project_folder

    ensure_project_folder(world.project_dir)  # an unwritable project fails before the agent
    agent = new_agent(world, model=model, files=settings)
    remember_current(world.project_dir, agent.id, "")
    return agent


def find_project_agent(
    world: World, agent_ref: str | None, settings: Settings | None = None
) -> AgentRecord | None:
    """`--agent`'s agent, else the project's; None when the project has none yet."""
    if agent_ref:
        return find_agent(world.home, agent_ref)
    settings = settings or read_settings(world.home, world.project_dir)
    last = settings.current_agent_id()
    if last is None:
        return None
    try:
        return find_agent(world.home, last)
    except NotFoundError:
        return _remaining_project_agent(world, last, settings)


def _remaining_project_agent(world: World, deleted: str, settings: Settings) -> AgentRecord | None:
    """The project's current agent is gone: its one other agent, if it has exactly one.

    Several candidates are an error asking to pick: guessing would send a user's messages
    to an agent they did not mean. None when the project has no other agent left.
    """
    remaining: list[AgentRecord] = []
    for agent_id in settings.used_agent_ids():
        if agent_id == deleted:
            continue
        try:
            remaining.append(find_agent(world.home, agent_id))
        except NotFoundError:
            continue
    if not remaining:
        return None
    if len(remaining) > 1:
        names = ", ".join(agent.name for agent in remaining)
        raise NotFoundError(
            f"this project's agent {deleted} no longer exists and it has used several others "
            f"({names}); pick one with --agent NAME"
        )
    (agent,) = remaining
    log.warning(
        "this project's agent %s no longer exists; using its other agent %s (%s)",
        deleted,
        agent.name,
        agent.id,
    )
    return agent


def resolve_conversation(
    world: World,
    agent: AgentRecord,
    conversation_id: str | None,
    *,
    new: bool = False,
    settings: Settings | None = None,
) -> ConversationStore:
    """The conversation to continue, made current in this project."""
    if new:
        store = create_conversation(world.home, agent.id, world.clock)
    elif conversation_id:
        store = open_conversation(world.home, agent.id, conversation_id)
    else:
        settings = settings or read_settings(world.home, world.project_dir)
        current = settings.current_conversation_id(agent.id)
        candidate = ConversationStore(agent.id, current, world.home) if current else None
        if candidate is not None and candidate.exists():
            store = candidate
        else:
            store = create_conversation(world.home, agent.id, world.clock)
    remember_current(world.project_dir, agent.id, store.conversation_id)
    return store


def leave_conversation(world: World, store: ConversationStore) -> None:
    """Leaving a conversation: one that holds no message is removed, and when it was the
    project's current one, the agent's newest remaining conversation becomes current, so an
    empty `/new` or `/clear` leaves nothing behind."""
    from mini_letta.conversations.registry import discard_if_empty, scan_conversations

    if not discard_if_empty(store):
        return
    settings = read_settings(world.home, world.project_dir)
    if settings.current_conversation_id(store.agent_id) != store.conversation_id:
        return
    remaining, _damaged = scan_conversations(world.home, store.agent_id)
    remember_current(world.project_dir, store.agent_id, remaining[0].id if remaining else "")
