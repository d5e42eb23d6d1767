"""The chat's `memory` tool keeps to the memory gate's per-file budget.

`with_memory_budget` gives a turn's tools the gate's own per-file cap (`GateLimits.for_window`
over the window the gate uses, the agent's model's as side agents see it, never a chat's
`--context-window`, and the reflection settings), as a callable the tool asks only when it
writes: a plain turn loads neither the gate nor the settings for it. The same cap bounds each
system file in the compiled prompt, asked once, when the prompt is first compiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mini_letta.memory.compile import FileCap
from mini_letta.structs import replace

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord
    from mini_letta.loop.setup import TurnSetup
    from mini_letta.settings import Settings
    from mini_letta.workspace import World


def with_memory_budget(
    world: World, agent: AgentRecord, setup: TurnSetup, files: Settings | None = None
) -> TurnSetup:
    """`setup` whose tool context carries `memory_file_cap`, the per-file cap in tokens.

    `files`: the command's settings files, read once when it began (read here when not given)."""

    def file_cap() -> int:
        from mini_letta.reflection.gate.check import GateLimits
        from mini_letta.reflection.run.setup import side_agent_provider
        from mini_letta.reflection.state.settings import load_reflection_settings

        window = side_agent_provider(world, agent).context_window  # as the gate's run sees it
        settings = load_reflection_settings(world.home, world.project_dir, agent, files)
        limits = GateLimits.for_window(
            window, settings.system_budget_percent, settings.file_budget_percent
        )
        return limits.file_tokens

    def prompt_cap() -> FileCap:
        from mini_letta.llm.tokens import estimate_tokens
        from mini_letta.reflection.gate.budget_notice import agent_memory_budget

        # The gate's budget without building a provider: this is asked on a turn's first compile.
        budget = agent_memory_budget(world.home, world.project_dir, agent, files)
        return FileCap(budget.file_tokens, estimate_tokens)

    if setup.pinned is not None:  # a large system file costs its budget, not its size
        setup.pinned.compiler.cap_files(prompt_cap)
    return replace(setup, tool_context=replace(setup.tool_context, memory_file_cap=file_cap))
