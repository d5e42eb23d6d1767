"""TurnSetup, what a turn runs with, and how to assemble one: provider, tools, system prompt.

Shared by `chat -p`, the stream-json input mode and the interactive session, so the three
behave the same. Nothing here runs a model; it only decides what the turn will use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock
from mini_letta.context.prompt_pin import PinnedPrompt
from mini_letta.conversations.store import ConversationStore
from mini_letta.llm.base import Provider, Purpose
from mini_letta.llm.handles import parse_handle
from mini_letta.llm.registry import ProviderOptions, build_provider
from mini_letta.memory.compile import PromptCompiler
from mini_letta.settings import Settings, read_settings
from mini_letta.structs import Struct
from mini_letta.tools.base import Approver, EditorFiles, ToolContext, Toolset, ToolSource
from mini_letta.tools.permissions import PermissionMode
from mini_letta.tools.registry import build_toolset, choose_tool_names
from mini_letta.workspace import World

if TYPE_CHECKING:
    from mini_letta.skills.discover import Catalog

DEFAULT_MAX_STEPS = 20


class TurnSetup(Struct, frozen=True):
    agent: AgentRecord
    store: ConversationStore
    provider: Provider
    toolset: Toolset
    tool_context: ToolContext
    clock: Clock
    system_prompt: Callable[[], str]
    max_steps: int = DEFAULT_MAX_STEPS
    purpose: Purpose = "chat"  # the reflection and merge-review agents run this loop too
    pinned: PinnedPrompt | None = None  # a conversation's pinned prompt (None: a fixed prompt)
    skills: Catalog | None = None  # the skills found when the session began (with Skill only)


class TurnOptions(Struct, frozen=True):
    model: str | None = None
    base_url: str | None = None
    context_window: int | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    permission_mode: PermissionMode = "default"
    approve: Approver | None = None
    tools: tuple[str, ...] | None = None  # --tools; None = agent.json, else the default
    allowed_tools: frozenset[str] = frozenset()
    disallowed_tools: frozenset[str] = frozenset()
    recompile: bool = False  # --recompile: show memory as it is now from this turn on
    editor_files: EditorFiles | None = None  # an editor reads and writes the files (ACP)


def build_agent_provider(world: World, agent: AgentRecord, options: TurnOptions) -> Provider:
    """The run's model: --model (this run only) or agent.json's, with the agent's settings.

    The agent's base URL carries over to a --model of the same provider, its window and output
    limit only to the same model; a flag always wins.
    """
    handle = parse_handle(options.model or agent.model)
    own = parse_handle(agent.model)
    same_provider = handle.provider == own.provider
    same_model = same_provider and handle.model == own.model
    return build_provider(
        handle,
        ProviderOptions(
            environ=world.environ,
            base_url=options.base_url or (agent.base_url if same_provider else None),
            context_window=options.context_window or (agent.context_window if same_model else None),
            max_output_tokens=agent.max_output_tokens if same_model else None,
            temperature=agent.temperature,
            cache_ttl=agent.prompt_cache_ttl,
            clock=world.clock,
            cwd=world.cwd,
        ),
    )


def build_system_prompt(
    agent: AgentRecord,
    store: ConversationStore,
    compiler: PromptCompiler | None = None,
    skills: Catalog | None = None,
) -> PinnedPrompt:
    """The conversation's prompt: base + memory at its pinned commit (cached by sha), and the
    skills list when the session has skills."""
    home = store.home
    memory_dir = home.memory_dir(agent.id)
    owned = compiler or PromptCompiler(memory_dir, home.prompt_cache_file(agent.id))
    listed = None
    if skills is not None:
        from mini_letta.skills.prompt import SkillsPrompt

        listed = SkillsPrompt(skills.skills)
    return PinnedPrompt(agent.system, agent.id, store, owned, memory_dir, listed)


def find_session_skills(world: World, agent: AgentRecord) -> Catalog | None:
    """The skills of the five sources, each invalid one warned about once; None when none of
    their folders exists (the usual case: nothing of the skills machinery is imported)."""
    from mini_letta.home import memory_skills_dir, skill_folders, user_home_dir

    memory_dir = world.home.memory_dir(agent.id)
    bases = [world.cwd, *filter(None, [user_home_dir(world.environ)])]
    folders = [memory_skills_dir(memory_dir), *(p for b in bases for _, p in skill_folders(b))]
    if not any(folder.is_dir() for folder in folders):
        return None
    from mini_letta import log
    from mini_letta.skills.discover import discover_skills, skill_roots

    catalog = discover_skills(skill_roots(memory_dir, world.cwd, world.environ))
    for invalid in catalog.invalid:
        log.warning("%s", invalid.render())
    return catalog


def _readable_skill_folders(world: World, skills: Catalog | None) -> tuple[Path, ...]:
    if skills is None:
        return ()
    from mini_letta.home import user_home_dir

    home = user_home_dir(world.environ)
    return skills.folders(world.cwd, world.home.root, *([home] if home else []))


def _mcp_tools(options: TurnOptions, provider: str, mcp: ToolSource | None) -> ToolSource | None:
    """MCP tools join unless --tools chose the set or the model is the mock (memory alone)."""
    return None if options.tools is not None or provider == "mock" else mcp


def build_turn_setup(
    world: World,
    agent: AgentRecord,
    store: ConversationStore,
    options: TurnOptions,
    settings: Settings | None = None,
    mcp: ToolSource | None = None,
) -> TurnSetup:
    """What the turns of this conversation run with; `settings` is the command's snapshot of
    the settings files (read here when not given); `mcp` the session's MCP servers, whose
    tools join a real model's default tool set (listed, so started, at the first request)."""
    provider = build_agent_provider(world, agent, options)
    provider_name = parse_handle(options.model or agent.model).provider
    names = choose_tool_names(
        provider_name,
        explicit=options.tools,
        configured=agent.tools,
        disallowed=options.disallowed_tools,
    )
    skills = find_session_skills(world, agent) if "Skill" in names else None
    if skills is None or not skills.skills:
        names, skills = tuple(name for name in names if name != "Skill"), None
    context = ToolContext(
        cwd=world.cwd,
        clock=world.clock,
        agent_id=agent.id,
        memory_dir=world.home.memory_dir(agent.id),
        home=world.home,
        permission_mode=options.permission_mode,
        allowed_tools=options.allowed_tools,
        disallowed_tools=options.disallowed_tools,
        approve=options.approve,
        bash_env_allow=(settings or read_settings(world.home, world.project_dir)).bash_env_allow(),
        environ=world.environ,
        skills=skills,
        skill_dirs=_readable_skill_folders(world, skills),
        editor_files=options.editor_files,
    )
    prompt = build_system_prompt(agent, store, skills=skills)
    if options.recompile:
        prompt.request_recompile()
    return TurnSetup(
        agent=agent,
        store=store,
        provider=provider,
        toolset=build_toolset(names, more=_mcp_tools(options, provider_name, mcp)),
        tool_context=context,
        clock=world.clock,
        system_prompt=prompt,
        pinned=prompt,
        max_steps=options.max_steps,
        skills=skills,
    )
