"""`/context`: where the context window goes, from the same accounting the turn loop uses.

The parts (system prompt, the memory shown in it, tool schemas, the reminder, messages, free
space) add up to the window: messages are what `measure_context` counts beyond the fixed part
(anchored on the provider's reported usage, as compaction sees it), free is what is left. The
conversation's token totals follow, with what the provider's prompt cache served.
"""

from __future__ import annotations

from mini_letta.cli.fit import fit_line, wrap_line
from mini_letta.cli.render import describe_usage
from mini_letta.conversations.messages import Usage
from mini_letta.llm.tokens import estimate_tokens, estimate_tool_tokens
from mini_letta.loop.pressure import measure_context
from mini_letta.loop.setup import TurnSetup
from mini_letta.structs import Struct

BAR_WIDTH = 40
MIN_BAR = 20
MAX_FILES = 8
GLYPHS = {"system prompt": "█", "memory": "▓", "tools": "▒", "reminder": "▪", "messages": "░"}


class ContextBreakdown(Struct, frozen=True):
    window: int
    threshold: int
    parts: tuple[tuple[str, int], ...]  # (name, tokens) in request order, free space excluded
    memory_files: tuple[tuple[str, int], ...]  # (path, tokens), largest first
    usage: Usage = Usage()  # the conversation's totals so far
    model_calls: int = 0

    @property
    def used(self) -> int:
        return sum(tokens for _, tokens in self.parts)

    @property
    def free(self) -> int:
        return self.window - self.used


def measure_breakdown(setup: TurnSetup) -> ContextBreakdown:
    measure = measure_context(setup)
    system = setup.system_prompt()
    section, files = _memory(setup)
    system_tokens = estimate_tokens(system)
    memory = min(estimate_tokens(section), system_tokens) if section else 0
    tools = sum(estimate_tool_tokens(spec) for spec in setup.toolset.specs)
    reminder = max(0, measure.prompt_tokens - system_tokens - tools)
    messages = max(0, measure.tokens - measure.prompt_tokens)
    parts = (
        ("system prompt", system_tokens - memory),
        ("memory", memory),
        ("tools", tools),
        ("reminder", reminder),
        ("messages", messages),
    )
    usage, calls = setup.store.total_usage()
    return ContextBreakdown(measure.window, measure.threshold, parts, files, usage, calls)


def _memory(setup: TurnSetup) -> tuple[str, tuple[tuple[str, int], ...]]:
    """The memory section the prompt shows and its files' sizes, at the pinned commit."""
    pinned = setup.pinned
    if pinned is None:
        return "", ()
    pin = pinned.pin()
    commit = pin.memory_commit if pin is not None else pinned.compiler.head()
    if not commit:
        return "", ()
    section = pinned.compiler.memory_section(commit)
    blobs = pinned.compiler.repo.read_blobs(commit)
    sizes = [
        (path, estimate_tokens(data.decode("utf-8", "replace")))
        for path, data in blobs.items()
        if path.endswith(".md")
    ]
    sizes.sort(key=lambda item: (-item[1], item[0]))
    return section, tuple(sizes)


def _bar(breakdown: ContextBreakdown, width: int) -> str:
    """`width` cells, each part's glyph over its share of the window, then free space."""
    window = max(1, breakdown.window)
    bar, edge = "", 0
    running = 0
    for name, tokens in breakdown.parts:
        running += tokens
        end = min(width, round(running * width / window))
        bar += GLYPHS[name] * max(0, end - edge)
        edge = max(edge, end)
    return bar + "·" * (width - edge)


def render_breakdown(breakdown: ContextBreakdown, columns: int | None = None) -> list[str]:
    """The bar and the parts. In a window of `columns` the bar narrows (to no less than
    MIN_BAR) to keep the totals beside it, else the totals go below it; long memory paths
    end in an ellipsis."""
    window = max(1, breakdown.window)
    percent = breakdown.used * 100 // window
    totals = f"{breakdown.used} of {breakdown.window} tokens ({percent}%)"
    frame = len("context  [] ")
    if columns is None:
        lines = [f"context  [{_bar(breakdown, BAR_WIDTH)}] {totals}"]
    elif columns - frame - len(totals) >= MIN_BAR:
        lines = [
            f"context  [{_bar(breakdown, min(BAR_WIDTH, columns - frame - len(totals)))}] {totals}"
        ]
    else:
        width = max(MIN_BAR // 2, min(BAR_WIDTH, columns - frame))
        lines = [f"context  [{_bar(breakdown, width)}]", f"  {totals}"]
    for name, tokens in breakdown.parts:
        if tokens or name != "reminder":
            lines.append(f"  {GLYPHS[name]} {name:<14} {tokens:>8}")
    if breakdown.free >= 0:
        lines.append(f"  · {'free':<14} {breakdown.free:>8}")
    else:
        lines.append(f"  ! over the window by {-breakdown.free} tokens")
    lines.append(f"  compaction at {breakdown.threshold} tokens")
    if breakdown.model_calls:
        used = describe_usage(breakdown.usage, breakdown.model_calls)
        lines += wrap_line(f"  used so far: {used}", columns, 4)
    if breakdown.memory_files:
        lines.append("memory files by size (tokens):")
        for path, tokens in breakdown.memory_files[:MAX_FILES]:
            lines.append(fit_line(f"  {tokens:>8}  {path}", columns))
        hidden = len(breakdown.memory_files) - MAX_FILES
        if hidden > 0:
            lines.append(f"  … and {hidden} more")
    return lines
