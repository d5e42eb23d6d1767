"""The chat's memory tool keeps memory consolidable: it refuses a line its file already has
(the model is told it is already known) and growth of any memory file past the gate's cap (the
gate caps every file, in system/ or not)."""

from __future__ import annotations

import pytest

from mini_letta.errors import MemoryEditError
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.reflection.policy.memory_budget import with_memory_budget
from mini_letta.structs import replace
from mini_letta.tools.base import ToolContext
from mini_letta.tools.memory_tool import MemoryTool
from mini_letta.workspace import new_agent, resolve_conversation
from support.clock import FakeClock

HUMAN = "system/human.md"


def _ctx(memory_repo, cap=None):
    return ToolContext(
        cwd=memory_repo.path,
        clock=FakeClock(),
        memory_dir=memory_repo.path,
        memory_file_cap=None if cap is None else (lambda: cap),
    )


def _insert(ctx, text, path=HUMAN):
    args = {"command": "insert", "path": path, "content": text, "reason": "remember"}
    return MemoryTool().run(args, ctx)


def test_an_exact_duplicate_line_is_refused_as_already_known(memory_repo):
    ctx = _ctx(memory_repo)
    _insert(ctx, "- my standup is at 9:30")
    head = memory_repo.head_sha()
    with pytest.raises(MemoryEditError, match="already known"):
        _insert(ctx, "  - my standup is at 9:30  ")
    assert memory_repo.head_sha() == head  # nothing written, nothing committed
    _insert(ctx, "- my standup moved to 10:00")  # a new fact is fine


def test_moving_a_line_within_its_file_is_not_a_duplicate(memory_repo):
    ctx = _ctx(memory_repo)
    _insert(ctx, "- first\n- second")
    args = {
        "command": "str_replace",
        "path": HUMAN,
        "old_str": "- first\n- second",
        "new_str": "- second\n- first",
        "reason": "order",
    }
    assert "committed" in MemoryTool().run(args, ctx).content


def test_a_system_file_cannot_grow_past_its_cap_but_may_shrink(memory_repo):
    ctx = _ctx(memory_repo, cap=120)
    for n in range(3):
        _insert(ctx, f"- fact number {n} about the project and its deployment")
    with pytest.raises(MemoryEditError, match="past its cap of 120: consolidate it"):
        for n in range(3, 40):
            _insert(ctx, f"- fact number {n} about the project and its deployment")
    shrink = {
        "command": "str_replace",
        "path": HUMAN,
        "old_str": "- fact number 0 about the project and its deployment\n",
        "new_str": "",
        "reason": "drop",
    }
    assert "committed" in MemoryTool().run(shrink, ctx).content


def test_a_file_outside_system_has_the_same_cap_as_the_gate_gives_it(memory_repo):
    ctx = _ctx(memory_repo, cap=120)
    create = {
        "command": "create",
        "path": "notes/deploys.md",
        "description": "Deploy notes",
        "content": "\n".join(f"- deploy note {n}" for n in range(10)),
        "reason": "detail",
    }
    assert "committed" in MemoryTool().run(create, ctx).content  # within the cap
    head = memory_repo.head_sha()
    with pytest.raises(MemoryEditError, match="notes/deploys.md would grow .* past its cap"):
        for n in range(10, 80):
            note = f"- deploy note {n} with its date and its outcome"
            _insert(ctx, note, path="notes/deploys.md")
    assert memory_repo.head_sha() != head  # the notes that fitted were kept
    too_big = dict(create, path="notes/big.md", content="\n".join(f"- n {n}" for n in range(400)))
    with pytest.raises(MemoryEditError, match="notes/big.md would grow"):
        MemoryTool().run(too_big, ctx)


def test_a_chat_turn_gets_the_gates_per_file_cap(world):
    agent = new_agent(world, name="capped", context_window=8_000)
    store = resolve_conversation(world, agent, None)
    setup = with_memory_budget(world, agent, build_turn_setup(world, agent, store, TurnOptions()))
    assert setup.tool_context.memory_file_cap() == 800  # 10% of the window
    tiny = with_memory_budget(
        world, agent, build_turn_setup(world, agent, store, TurnOptions(context_window=1200))
    )
    assert tiny.tool_context.memory_file_cap() == 800  # a chat's window is not the gate's
    assert setup.tool_context.home == world.home  # the rest is kept
    assert replace(setup, max_steps=3).tool_context is setup.tool_context
