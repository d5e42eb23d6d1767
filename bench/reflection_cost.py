"""Cost of the reflection hot paths at 10 vs 100,000 messages, and of a whole mock run.

Usage: python bench/reflection_cost.py [--runs N] [--messages N]
For a small and a large conversation it times (median of N): `steps_since_last_reflection`
with the watermark near the end, from no watermark with the post-turn limit (25) and without
a limit; the post-turn decision (`decide_after_turn`, which launches nothing) for step-count
below and at its threshold, for compaction-event without a flag and with a pending flag to
consume; building a payload with the watermark near the end and with everything unreflected
(bounded by the budget); and a whole mock reflection run (lease, worktree, agent, merge).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import fill_conversation, median_ms  # noqa: E402

from mini_letta.agents.records import AgentRecord  # noqa: E402
from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.reflection.policy.trigger import decide_after_turn  # noqa: E402
from mini_letta.reflection.run.launch import launch_reflection  # noqa: E402
from mini_letta.reflection.run.payload import build_payload, clear_payloads  # noqa: E402
from mini_letta.reflection.run.setup import LaunchOptions  # noqa: E402
from mini_letta.reflection.state.settings import ReflectionSettings  # noqa: E402
from mini_letta.reflection.state.watermark import (  # noqa: E402
    ReflectionState,
    save_reflection_state,
    steps_since_last_reflection,
)
from mini_letta.storage.atomic import save_json  # noqa: E402
from mini_letta.workspace import World, new_agent, resolve_conversation  # noqa: E402


def _near_end(store: ConversationStore, back: int) -> ReflectionState:
    line = store.count() - 1 - back
    found = store.at_line(line)
    assert found is not None
    return ReflectionState(reflected_through_message_id=found.id, reflected_through_line=line)


def _measure(world: World, count: int, runs: int) -> dict[str, float]:
    agent = new_agent(world, name=f"bench-{count}")
    store = resolve_conversation(world, agent, None, new=True)
    fill_conversation(store, count)
    near = _near_end(store, 9)  # ten unreflected messages, five steps
    empty = ReflectionState()
    clock = world.clock
    figures = {
        "steps, watermark near the end": median_ms(
            lambda: steps_since_last_reflection(store, near), runs
        ),
        "steps, no watermark, limit 25": median_ms(
            lambda: steps_since_last_reflection(store, empty, limit=25), runs
        ),
        "steps, no watermark, no limit": median_ms(
            lambda: steps_since_last_reflection(store, empty), max(1, runs // 3)
        ),
        "payload, watermark near the end": median_ms(
            lambda: build_payload(store, near, name="bench", clock=clock), runs
        ),
        "payload, all unreflected (25k-token budget)": median_ms(
            lambda: build_payload(store, empty, name="bench", clock=clock), runs
        ),
    }
    figures.update(_decisions(world, agent, store, near, runs))
    clear_payloads(store)

    def one_run() -> None:
        save_reflection_state(store, _near_end(store, 9))
        outcome = launch_reflection(world, agent, store, LaunchOptions())
        assert outcome.status in ("merged", "no_changes"), outcome

    figures["whole mock run, watermark near the end"] = median_ms(one_run, max(1, runs // 3))
    return figures


def _decisions(
    world: World, agent: AgentRecord, store: ConversationStore, near: ReflectionState, runs: int
) -> dict[str, float]:
    """The post-turn decision in each mode; it launches nothing (the outcome is checked)."""
    step = ReflectionSettings("step-count", 25)
    event = ReflectionSettings("compaction-event", 25)

    def decide(settings: ReflectionSettings, expected: str) -> Callable[[], None]:
        def action() -> None:
            decision = decide_after_turn(world, agent, store, platform="linux", settings=settings)
            assert decision.reason == expected, decision

        return action

    def with_flag() -> None:
        save_json(store.files.compaction_flag, {"schemaVersion": 1, "pending": True})
        decision = decide_after_turn(world, agent, store, platform="linux", settings=step)
        assert decision.compaction_consumed and decision.trigger is None

    save_reflection_state(store, near)  # five steps since the watermark: below 25
    figures = {
        "decision, step-count, below the threshold": median_ms(
            decide(step, "below_threshold"), runs
        ),
        "decision, compaction-event, no flag": median_ms(decide(event, "no_compaction"), runs),
        "decision, consuming a pending flag": median_ms(with_flag, runs),
    }
    save_reflection_state(store, ReflectionState())  # nothing reflected yet: due
    due = ReflectionSettings("step-count", 5)  # the small conversation has five steps in all
    figures["decision, step-count 5, due (no launch)"] = median_ms(decide(due, "launch"), runs)
    save_reflection_state(store, near)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--messages", type=int, default=100_000)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        world = World(Home(root / "home"), root / "project", {}, SystemClock())
        small = _measure(world, 10, opts.runs)
        large = _measure(world, opts.messages, opts.runs)
    width = max(len(name) for name in small)
    print(f"{'':{width}}  {'10 msgs':>10}  {f'{opts.messages:,} msgs':>13}  ratio")
    for name, fast in small.items():
        slow = large[name]
        print(f"{name:{width}}  {fast:8.2f}ms  {slow:11.2f}ms  {slow / fast:5.2f}")


if __name__ == "__main__":
    main()
