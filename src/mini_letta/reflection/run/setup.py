"""What a reflection run starts from: its options, its models and its transcript budget.

`LaunchOptions` is a launch's choices; `RunSetup` is what a launch has gathered once the
lease is held and the memory checked. The side agents' models are chosen here
(`side_agent_provider`), so the chat's memory tool and `preview` see the window a run sees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mini_letta.agents.records import AgentRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import MiniLettaError, ReflectionError
from mini_letta.llm.base import Provider
from mini_letta.loop.setup import TurnOptions, build_agent_provider
from mini_letta.memory.compile import PromptCompiler
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.gate.budget_notice import SMALL_WINDOW
from mini_letta.reflection.run.agent import DEFAULT_REFLECTION_STEPS
from mini_letta.reflection.run.budget import ReflectionBudget, reflection_budget
from mini_letta.reflection.run.payload import MIN_MAX_TOKENS
from mini_letta.reflection.run.task import reflection_system_prompt
from mini_letta.reflection.run.tools import RunProvenance, reflection_tools
from mini_letta.reflection.state.lease import ReflectionLease
from mini_letta.reflection.state.outcome import RunTrigger
from mini_letta.reflection.state.settings import ReflectionSettings
from mini_letta.structs import Struct, replace
from mini_letta.workspace import World

if TYPE_CHECKING:
    from mini_letta.hooks.runner import HookRunner

MIN_SIDE_WINDOW = SMALL_WINDOW  # a local server's real limit is usually at least this
MAX_CHUNKS = 100  # a bound on one launch, not a cut: what remains waits for the next launch


class LaunchOptions(Struct, frozen=True):
    trigger: RunTrigger = "manual"
    instruction: str | None = None
    provider: Provider | None = None  # default: the agent's model
    merge_provider: Provider | None = None  # default: the agent's model
    settings: ReflectionSettings | None = None  # default: the layered settings
    max_steps: int = DEFAULT_REFLECTION_STEPS
    chunk_tokens: int | None = None  # a smaller chunk than the model's window allows (tests)
    launch_line: int | None = None  # default: the log's end now (the chunks of a launch share it)
    model: str | None = None  # `reflect --model`: this run's reflection model
    base_url: str | None = None
    review_provider: Provider | None = None  # default: the settings' reviewModel, if any
    max_chunks: int = MAX_CHUNKS  # 1 after a turn in the foreground: the turn is not held
    hooks: HookRunner | None = None  # PreReflect and PostReflect around each launch (hooked.py)


class RunSetup(Struct, frozen=True):
    world: World
    agent: AgentRecord
    store: ConversationStore  # the first conversation: the outcome's and the review's
    options: LaunchOptions
    settings: ReflectionSettings
    provider: Provider
    parent: GitRepo
    run_id: str
    lease: ReflectionLease
    budget: ReflectionBudget
    compiler: PromptCompiler  # the memory section by commit, cached on disk like the chat's
    primary_window: int  # the agent's model window: the memory gate's budgets are shares of it


def run_budget(provider: Provider, memory: str, options: LaunchOptions) -> ReflectionBudget:
    """The run's transcript budget from its model's window and the memory section it starts
    from; `chunk_tokens` only lowers it."""
    budget = reflection_budget(
        provider.context_window,
        system_prompt=reflection_system_prompt(),
        tools=[tool.spec for tool in reflection_tools(RunProvenance())],
        memory=memory,
        instruction=options.instruction,
        model=provider.handle,
    )
    if options.chunk_tokens is not None and options.chunk_tokens < budget.chunk:
        budget = replace(budget, chunk=max(MIN_MAX_TOKENS, options.chunk_tokens))
    return budget


def memory_compiler(world: World, agent: AgentRecord) -> PromptCompiler:
    return PromptCompiler(world.home.memory_dir(agent.id), world.home.prompt_cache_file(agent.id))


def side_agent_provider(
    world: World, agent: AgentRecord, model: str | None = None, base_url: str | None = None
) -> Provider:
    """The model for the agent's reflection (`model`, default the agent's) and merge review.

    Side agents never see a chat's `--context-window` (that run's choice, often small to
    exercise compaction). Another model than the agent's gets its own window, never the
    agent's. For the agent's own model, agent.json's `contextWindow` describes that model as
    the user serves it (a local server's real limit), so it is kept and the chunks follow it;
    one below MIN_SIDE_WINDOW cannot hold a reflection at all and is a setting for chats, so
    the model's own window is used instead. Errors building it name it as the reflection model.
    """
    window = agent.context_window
    if window is not None and window < MIN_SIDE_WINDOW:
        agent = agent.with_updates(context_window=None)
    options = TurnOptions(model=model or None, base_url=base_url or None)
    try:
        return build_agent_provider(world, agent, options)
    except MiniLettaError as exc:
        if not model:
            raise
        raise ReflectionError(f"reflection model {model}: {exc}") from exc


def reflection_provider(
    world: World, agent: AgentRecord, settings: ReflectionSettings, options: LaunchOptions
) -> Provider:
    """`reflect --model`, else the stored reflection model, else the agent's model."""
    if options.provider is not None:
        return options.provider
    model = options.model or settings.model or None
    base_url = options.base_url or (settings.base_url if not options.model else None)
    return side_agent_provider(world, agent, model, base_url)
