"""How many git processes the memory operations start: each costs a user 2-3 ms of CPU.

The bounds are loose (a little above today's counts, bench/git_calls.py prints them) so a
refactor that brings back a repeated look at the repository fails here.
"""

from __future__ import annotations

from collections import Counter

from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.tools.base import ToolContext
from mini_letta.tools.memory_tool import MemoryTool
from mini_letta.workspace import new_agent
from support.git_calls import git_calls
from support.reflection_kit import add_turn

EDIT = {"command": "insert", "path": "system/human.md", "content": "- tea", "reason": "r"}


def test_creating_an_agent_starts_three_git_processes(world):
    new_agent(world, name="warm")
    with git_calls() as calls:
        new_agent(world)
    assert sorted(calls) == ["add", "commit", "init"]  # no config, no symbolic-ref


def test_a_memory_tool_edit_commits_without_staging_first(world, agent):
    """The fixture's agent is a copy, so git's index does not vouch for the other files and a
    status is asked; the edit itself is one commit of the tracked path (no `git add`)."""
    memory = world.home.memory_dir(agent.id)
    ctx = ToolContext(cwd=memory, clock=world.clock, memory_dir=memory)
    with git_calls() as calls:
        result = MemoryTool().run(EDIT, ctx)
    assert "committed" in result.content
    assert calls == ["status", "commit"]


def test_a_merged_run_and_a_run_with_nothing_to_keep_stay_within_their_counts(world, agent, store):
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="好的")
    with git_calls() as merged:
        outcome = launch_reflection(world, agent, store, LaunchOptions())
    assert outcome.status == "merged", outcome
    assert len(merged) <= 8, Counter(merged)
    assert Counter(merged)["status"] <= 2, merged  # launch, parent (the commit tool: add -v)
    # The worktree's status and its commits are what the run's own tools did; the worktree
    # is detached (no branch to delete) and removed in the process (one `worktree add`).
    assert Counter(merged)["worktree"] == 1, merged
    # The gate's diff is made from the files the tools kept (reflection/gate/filediff.py).
    unwanted = {"config", "gc", "for-each-ref", "rev-list", "ls-files", "log", "branch", "diff"}
    assert not unwanted & set(merged), merged
    add_turn(store, world.clock, "hello there", answer="hi")
    with git_calls() as nothing:
        outcome = launch_reflection(world, agent, store, LaunchOptions())
    assert outcome.status == "no_changes", outcome
    assert len(nothing) <= 5, Counter(nothing)
    assert Counter(nothing)["status"] == 1 and "log" not in nothing, nothing  # the launch's
    assert Counter(nothing)["worktree"] == 1 and "branch" not in nothing, nothing
    assert GitRepo(world.home.memory_dir(agent.id)).current_branch() == "main"
