"""A memory file at or over its budget is a task, not a wall: the reflection task names it,
the mock consolidates it (repeats merged) before adding, the run
merges, and the watermark moves on."""

from __future__ import annotations

from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.run.task import build_reflection_task
from mini_letta.reflection.state.watermark import read_reflection_state
from mini_letta.workspace import new_agent, resolve_conversation
from support.reflection_kit import add_turn

HUMAN = "system/human.md"


def test_the_task_names_the_files_over_budget():
    task = build_reflection_task([], "memory", None, [(HUMAN, 520, 409)])
    assert '<consolidate path="system/human.md" tokens="520" cap="409"/>' in task
    assert "Consolidate each one first" in task
    assert "<consolidate" not in build_reflection_task([], "memory", None)


def test_an_over_budget_human_file_is_consolidated_and_the_run_merges(world):
    agent = new_agent(world, name="full", context_window=6_000)  # a per-file cap of 600
    repo = GitRepo(world.home.memory_dir(agent.id))
    path = repo.path / HUMAN
    head, _, _ = path.read_text().partition("---\n")[2].partition("---\n")
    lines = ["- Preference: my standup is at 9:30"] * 80
    lines += ["- Preference: I prefer spaces for indentation", "- About: I work at Acme"] * 10
    lines += ["- Preference: I prefer tabs for indentation"]
    path.write_text(f"---\n{head}---\n" + "\n".join(lines) + "\n")
    repo.commit_paths([HUMAN], "a full file")
    store = resolve_conversation(world, agent, None)
    add_turn(store, world.clock, "I really prefer vim as my editor.", answer="Noted.")
    outcome = launch_reflection(world, agent, store, LaunchOptions())
    assert outcome.status == "merged", outcome.message
    body = [line for line in path.read_text().split("---\n", 2)[2].splitlines() if line]
    assert len(body) == len(set(body))  # no exact duplicate line
    assert body.count("- Preference: my standup is at 9:30") == 1
    assert body.count("- Preference: I prefer spaces for indentation") <= 1
    assert "- Preference: I prefer tabs for indentation" in body
    assert any("vim" in line for line in body)  # and the new statement is in
    assert read_reflection_state(store).reflected_through_line == store.count() - 1
