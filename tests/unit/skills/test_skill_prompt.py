"""The skills block: names and descriptions only, under a token cap, memory's at the pinned
commit so the prompt stays byte-identical while a reflection adds a skill."""

from __future__ import annotations

from pathlib import Path

import mini_letta.structs
from mini_letta.llm.tokens import estimate_tokens
from mini_letta.loop.events import TurnResult
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.memory.repo import GitRepo
from mini_letta.skills.discover import discover_skills, skill_roots
from mini_letta.skills.prompt import Listing, render_skills_block
from mini_letta.workspace import resolve_conversation
from support.agents import project_agent
from support.reflection_kit import ScriptedProvider
from support.skills import write_skill


def _catalog(root: Path, count: int):
    for n in range(count):
        write_skill(root, f"skill-{n:03d}", f"Skill number {n} does task {n} when asked. " * 3)
    return discover_skills(skill_roots(None, root.parent.parent, {}))


def test_two_hundred_skills_stay_under_the_cap_with_and_n_more(tmp_path):
    catalog = _catalog(tmp_path / ".agents" / "skills", 200)
    block = render_skills_block([], catalog.skills, cap=2_000)
    assert estimate_tokens(block) <= 2_000
    listed = [line for line in block.splitlines() if line.startswith("- skill-")]
    assert 10 < len(listed) < 200
    assert f"- …and {200 - len(listed)} more (call Skill without a name" in block
    assert "Do the thing." not in block  # bodies wait for the Skill tool


def test_memory_wins_a_clash_and_hidden_skills_are_not_listed(tmp_path):
    root = tmp_path / ".agents" / "skills"
    write_skill(root, "deploy", "The project's deploy.")
    write_skill(root, "secret-op", frontmatter="name: secret-op\ndescription: d\n"
                "disable-model-invocation: true\n")  # fmt: skip
    catalog = discover_skills(skill_roots(None, tmp_path, {}))
    block = render_skills_block([Listing("deploy", "Memory's deploy.", "memory")], catalog.skills)
    assert "- deploy (memory): Memory's deploy." in block
    assert "The project's deploy." not in block and "secret-op" not in block
    assert render_skills_block([], []) == ""


def _turn(setup, text):
    result = list(run_turn(setup, text))[-1]
    assert isinstance(result, TurnResult)
    return result


def test_a_skill_learned_meanwhile_keeps_the_prompt_until_recompile(world):
    write_skill(world.cwd / ".claude" / "skills", "fmt", "Format the code.")
    agent = project_agent(world)
    store = resolve_conversation(world, agent, None)
    provider = ScriptedProvider()
    options = TurnOptions(tools=("memory", "Skill"))
    setup = mini_letta.structs.replace(
        build_turn_setup(world, agent, store, options), provider=provider
    )
    _turn(setup, "hello")
    memory = world.home.memory_dir(agent.id)
    write_skill(memory / "skills", "release", "Release a version.")
    GitRepo(memory).commit_paths(["skills/release/SKILL.md"], "skill: release")
    _turn(setup, "again")
    first, second = (request.system for request in provider.requests[-2:])
    assert first == second
    assert "- fmt (project): Format the code." in first and "release" not in first
    update = provider.requests[-1].messages[-2].content
    assert "Skills added or changed in memory (skills/<name>/SKILL.md): release" in update
    again = build_turn_setup(
        world, agent, store, mini_letta.structs.replace(options, recompile=True)
    )
    _turn(mini_letta.structs.replace(again, provider=provider), "recompiled")
    assert "- release (memory): Release a version." in provider.requests[-1].system
