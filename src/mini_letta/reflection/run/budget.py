"""How much transcript one reflection request can carry, in tokens of the reflection model.

The reflection agent's first request holds its system prompt, its tool schemas, the task (the
memory section, notes) and the transcript; then its own steps (edits, reads, tool results)
grow the context. The transcript gets what is left of the model's window below the point
where the turn loop would compact, after the fixed part and a reserve for those steps,
measured with the estimator every context decision uses (`llm/tokens.py`). A slice larger
than that is reflected in ordered chunks (`run.launch_reflection`), never cut.
"""

from __future__ import annotations

from collections.abc import Iterable

from mini_letta.context.builder import compaction_threshold
from mini_letta.errors import ReflectionError
from mini_letta.llm.base import ToolSpec
from mini_letta.llm.tokens import MESSAGE_OVERHEAD, estimate_prompt_tokens, estimate_tokens
from mini_letta.reflection.run.task import build_reflection_task
from mini_letta.structs import Struct

MIN_STEP_RESERVE = 1_024  # the agent's own steps: a few edits, reads and their results
STEP_RESERVE_SHARE = 8  # ... or an eighth of the window, when that is more
MIN_CHUNK_TOKENS = 256  # below this a window cannot usefully hold a reflection
# Above this a transcript is split even when the window could take more: one request over a
# whole day of work is slower, dearer and extracts worse than a few ordered ones.
MAX_CHUNK_TOKENS = 25_000
TRANSCRIPT_WRAPPER_TOKENS = 64  # a transcript's tag and notes around its messages


class ReflectionBudget(Struct, frozen=True):
    window: int  # the reflection model's own context window
    fixed: int  # system prompt, tool schemas, and the task without its transcript
    reserve: int  # room kept for the agent's own steps
    chunk: int  # tokens of transcript one run may carry

    def to_json(self) -> dict[str, int]:
        return {
            "contextWindow": self.window,
            "fixedTokens": self.fixed,
            "reserveTokens": self.reserve,
            "chunkTokens": self.chunk,
        }


def reflection_budget(
    window: int,
    *,
    system_prompt: str,
    tools: Iterable[ToolSpec],
    memory: str,
    instruction: str | None,
    model: str,
) -> ReflectionBudget:
    """The transcript budget for a model with this window; a window too small for any
    transcript is a ReflectionError naming the model (a run there could only fail)."""
    task = build_reflection_task([], memory, instruction)
    fixed = estimate_prompt_tokens(system_prompt, tools) + estimate_tokens(task)
    fixed += MESSAGE_OVERHEAD
    reserve = max(MIN_STEP_RESERVE, window // STEP_RESERVE_SHARE)
    room = compaction_threshold(window) - fixed - reserve
    if room < MIN_CHUNK_TOKENS:
        needed = fixed + reserve + MIN_CHUNK_TOKENS
        raise ReflectionError(
            f"reflection model {model}: its context window of {window} tokens is too small "
            f"for a reflection (about {needed} tokens below its compaction point needed: "
            "the prompt, the memory and the agent's steps); choose another model with "
            "`mini-letta sleeptime --model`"
        )
    return ReflectionBudget(window, fixed, reserve, min(room, MAX_CHUNK_TOKENS))
