"""Agents and their memory: created together, never re-created behind the user's back."""

from __future__ import annotations

import json
import shutil

import pytest

import mini_letta.structs
from mini_letta.agents.registry import list_agents
from mini_letta.errors import GitError, MemfsError
from mini_letta.memory.compile import PromptCompiler
from mini_letta.memory.recover import recover_memory
from mini_letta.memory.repo import GitRepo
from mini_letta.workspace import new_agent, resolve_agent, resolve_or_create_agent
from support.git_calls import git_calls


def test_new_agent_gets_a_memory_repo(world):
    agent = new_agent(world, name="alpha")
    repo = GitRepo(world.home.memory_dir(agent.id))
    assert repo.current_branch() == "main"
    assert repo.list_files() == ["system/human.md", "system/persona.md"]


def test_opening_an_agent_whose_memory_is_gone_stops_and_recreates_nothing(world):
    agent = resolve_or_create_agent(world, None)
    folder = world.home.memory_dir(agent.id)
    shutil.rmtree(folder)
    for ref in (None, agent.id):
        with pytest.raises(MemfsError, match="memory recover") as err:
            resolve_agent(world, ref)
        assert str(folder) in str(err.value) and "is missing" in str(err.value)
    assert not folder.exists()
    assert resolve_agent(world, None, check_memory=False).id == agent.id


def test_recover_memory_keeps_the_markdown_and_moves_the_rest_aside(world):
    agent = resolve_or_create_agent(world, None)
    folder = world.home.memory_dir(agent.id)
    (folder / "notes").mkdir()
    (folder / "notes" / "a.md").write_text("---\ndescription: a\n---\nkept\n")
    (folder / "notes" / "b.txt").write_text("not memory")
    shutil.rmtree(folder / ".git")
    done = recover_memory(folder, world.clock)
    assert done is not None and done.aside is not None and (done.aside / "notes" / "b.txt").exists()
    assert set(done.kept) == {"notes/a.md", "system/human.md", "system/persona.md"}
    repo = GitRepo(folder)
    assert repo.list_files() == ["notes/a.md", "system/human.md", "system/persona.md"]
    assert repo.run("rev-list", "--count", "HEAD").strip() == "1"
    assert recover_memory(folder, world.clock) is None


def test_new_agent_without_git_is_refused_before_anything_is_made(world, tmp_path):
    no_git = mini_letta.structs.replace(world, environ={"PATH": str(tmp_path)})
    with pytest.raises(GitError, match="git is not installed or not on PATH; install git"):
        new_agent(no_git, name="nogit")
    assert list_agents(world.home) == []


def test_a_new_agent_s_first_prompt_needs_no_git(world):
    agent = new_agent(world, name="fresh")
    memory = world.home.memory_dir(agent.id)
    cache = world.home.prompt_cache_file(agent.id)
    with git_calls() as calls:
        section = PromptCompiler(memory, cache).memory_section()
    assert calls == []  # the record creation wrote of the files it committed
    assert section == PromptCompiler(memory).memory_section()  # what git's files give
    assert json.loads(cache.read_text())["head"] == GitRepo(memory).head_sha()
