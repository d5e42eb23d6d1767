"""Per-turn cost of context accounting at 10, 1,000 and 100,000 messages in the log.

Builds the conversations by appending messages directly with ConversationStore.append, in
batches, then times in-process: `load_context_view` alone; `measure_context` (view, reminder and
usage-corrected estimate: all the accounting a model call does); and full mock turns. The two
long logs start uncompacted, so their first turn compacts; the later turns are the steady state.

    python bench/context_cost.py [--messages 100000] [--window 8192] [--repeat 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from mini_letta.structs import replace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from _common import fill_conversation, median_ms  # noqa: E402

from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.context.builder import load_context_view  # noqa: E402
from mini_letta.conversations.registry import create_conversation  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.llm.mock import MockProvider  # noqa: E402
from mini_letta.loop.events import CompactionEvent  # noqa: E402
from mini_letta.loop.pressure import measure_context  # noqa: E402
from mini_letta.loop.setup import (  # noqa: E402
    TurnOptions,
    TurnSetup,  # noqa: E402
    build_turn_setup,
)
from mini_letta.loop.turn import run_turn  # noqa: E402
from mini_letta.workspace import World, new_agent  # noqa: E402

SENTENCE = "今天我们讨论了部署流程，决定以后所有服务都用容器发布，并且每周五做一次回顾。"


def _turn(setup: TurnSetup) -> int:
    return sum(isinstance(e, CompactionEvent) for e in run_turn(setup, "再说一句：" + SENTENCE))


def _conversation(world: World, name: str, count: int, window: int) -> TurnSetup:
    agent = new_agent(world, name=name)
    store = create_conversation(world.home, agent.id, world.clock)
    setup = build_turn_setup(world, agent, store, TurnOptions(context_window=window))
    setup = replace(setup, provider=MockProvider(context_window=window))
    started = time.perf_counter()
    fill_conversation(setup.store, count)
    print(f"{name}: built {count:,} messages in {time.perf_counter() - started:.1f} s")
    return setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        world = World(Home(root / "home"), root / "project", {}, SystemClock())
        rows = []
        for name, count in (("small", 10), ("medium", 1000), ("big", args.messages)):
            setup = _conversation(world, name, count, args.window)
            budget = args.window
            view_cold = median_ms(lambda s=setup, b=budget: load_context_view(s.store, b), 5)
            started = time.perf_counter()
            compacted = _turn(setup)
            first = (time.perf_counter() - started) * 1000
            view = median_ms(lambda s=setup, b=budget: load_context_view(s.store, b), args.repeat)
            measure = median_ms(lambda s=setup: measure_context(s), args.repeat)
            turn = median_ms(lambda s=setup: _turn(s), args.repeat)
            size = measure_context(setup)
            rows.append((name, count, view_cold, first, compacted, view, measure, turn, size))
    print(f"\nwindow {args.window} tokens, mock model, median of {args.repeat} (ms)")
    header = (
        f"{'log':>6} {'messages':>9} {'view, no ptr':>13} {'1st turn':>9} {'compacted':>9} "
        f"{'view':>7} {'accounting':>11} {'turn':>7} {'in context':>11}"
    )
    print(header)
    for name, count, cold, first, compacted, view, measure, turn, size in rows:
        print(
            f"{name:>6} {count:>9,} {cold:>13.2f} {first:>9.1f} {compacted:>9} "
            f"{view:>7.2f} {measure:>11.2f} {turn:>7.2f} {size.tokens:>6} tok"
        )
    _, medium, big = rows
    print("\nboth compacted on their first turn, so their in-context views are alike:")
    print(f"steady-state turn, big / medium: {big[7] / medium[7]:.2f}x")
    print(f"accounting per model call, big / medium: {big[6] / medium[6]:.2f}x")


if __name__ == "__main__":
    main()
