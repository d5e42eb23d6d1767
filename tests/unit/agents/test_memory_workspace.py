"""Agents and their memory: created together, re-created when missing, git required."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from mini_letta.agents.registry import list_agents
from mini_letta.errors import GitError
from mini_letta.memory.repo import GitRepo
from mini_letta.workspace import new_agent, resolve_agent, resolve_or_create_agent


def test_new_agent_gets_a_memory_repo(world):
    agent = new_agent(world, name="alpha")
    repo = GitRepo(world.home.memory_dir(agent.id))
    assert repo.current_branch() == "main"
    assert repo.list_files() == ["system/human.md", "system/persona.md"]


def test_opening_an_agent_recreates_missing_memory(world):
    agent = resolve_or_create_agent(world, None)
    shutil.rmtree(world.home.memory_dir(agent.id))
    assert resolve_or_create_agent(world, None).id == agent.id
    assert GitRepo(world.home.memory_dir(agent.id)).list_files() == [
        "system/human.md", "system/persona.md",
    ]  # fmt: skip
    shutil.rmtree(world.home.memory_dir(agent.id))
    resolve_agent(world, agent.id)
    assert GitRepo(world.home.memory_dir(agent.id)).has_head()


def test_new_agent_without_git_is_refused_before_anything_is_made(world, tmp_path):
    no_git = dataclasses.replace(world, environ={"PATH": str(tmp_path)})
    with pytest.raises(GitError, match="git is not installed or not on PATH; install git"):
        new_agent(no_git, name="nogit")
    assert list_agents(world.home) == []
