"""Assemble a TurnSetup for an agent and conversation: provider, tools, system prompt.

Shared by `chat -p`, the stream-json input mode and the interactive session, so the three
behave the same. Nothing here runs a model; it only decides what the turn will use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mini_letta.agents.records import AgentRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.llm.base import Provider
from mini_letta.llm.registry import ProviderOptions, build_provider
from mini_letta.loop.turn import DEFAULT_MAX_STEPS, TurnSetup
from mini_letta.memory.compile import PromptCompiler
from mini_letta.tools.base import Approver, ToolContext, Toolset
from mini_letta.tools.memory_tool import MemoryTool
from mini_letta.tools.permissions import PermissionMode
from mini_letta.workspace import World


@dataclass(frozen=True, slots=True)
class TurnOptions:
    model: str | None = None
    base_url: str | None = None
    context_window: int | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    permission_mode: PermissionMode = "default"
    approve: Approver | None = None


def build_agent_provider(world: World, agent: AgentRecord, options: TurnOptions) -> Provider:
    return build_provider(
        options.model or agent.model,
        ProviderOptions(
            environ=world.environ,
            base_url=options.base_url or agent.base_url,
            context_window=options.context_window or agent.context_window,
            max_output_tokens=agent.max_output_tokens,
            temperature=agent.temperature,
            clock=world.clock,
        ),
    )


def build_system_prompt(
    agent: AgentRecord, store: ConversationStore, compiler: PromptCompiler | None = None
) -> Callable[[], str]:
    """The prompt for each model call: base + memory at HEAD (cached by sha) + metadata."""
    home = store.home
    memory_dir = home.memory_dir(agent.id)
    owned = compiler or PromptCompiler(memory_dir, home.prompt_cache_file(agent.id))

    def metadata() -> dict[str, str]:
        return {
            "agent id": agent.id,
            "conversation id": store.conversation_id,
            "stored messages (at compile time)": str(store.count()),
            "memory path": str(memory_dir),
        }

    def render() -> str:
        return owned.compile(agent.system, metadata)

    return render


def build_turn_setup(
    world: World, agent: AgentRecord, store: ConversationStore, options: TurnOptions
) -> TurnSetup:
    provider = build_agent_provider(world, agent, options)
    context = ToolContext(
        cwd=world.cwd,
        clock=world.clock,
        agent_id=agent.id,
        memory_dir=world.home.memory_dir(agent.id),
        permission_mode=options.permission_mode,
        approve=options.approve,
    )
    return TurnSetup(
        agent=agent,
        store=store,
        provider=provider,
        toolset=Toolset((MemoryTool(),)),
        tool_context=context,
        clock=world.clock,
        system_prompt=build_system_prompt(agent, store),
        max_steps=options.max_steps,
    )
