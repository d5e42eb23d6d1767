from __future__ import annotations

import pytest

from mini_letta.agents.registry import find_agent, list_agents, rename_agent
from mini_letta.errors import CorruptFileError, InvalidValueError, NotFoundError
from mini_letta.settings import read_settings
from mini_letta.workspace import (
    new_agent,
    resolve_agent,
    resolve_conversation,
    resolve_or_create_agent,
)


def test_first_use_creates_the_project_agent_and_remembers_it(world):
    agent = resolve_or_create_agent(world, None)
    assert agent.name == "project" and agent.model == "mock"
    assert resolve_or_create_agent(world, None).id == agent.id
    assert read_settings(world.home, world.cwd).local_data["lastAgentId"] == agent.id


def test_names_are_unique_and_found(world, clock):
    a = new_agent(world, name="alpha")
    clock.advance(1)
    b = new_agent(world)
    clock.advance(1)
    c = new_agent(world)
    assert (b.name, c.name) == ("project", "project-2")
    assert find_agent(world.home, "alpha").id == a.id
    assert find_agent(world.home, a.id).id == a.id
    with pytest.raises(InvalidValueError):
        rename_agent(world.home, b.id, "alpha")
    with pytest.raises(NotFoundError):
        find_agent(world.home, "nobody")
    assert [x.id for x in list_agents(world.home)] == [a.id, b.id, c.id]


def test_conversation_resolution(world):
    agent = resolve_or_create_agent(world, None)
    first = resolve_conversation(world, agent, None)
    assert resolve_conversation(world, agent, None).conversation_id == first.conversation_id
    second = resolve_conversation(world, agent, None, new=True)
    assert second.conversation_id != first.conversation_id
    assert resolve_conversation(world, agent, None).conversation_id == second.conversation_id
    chosen = resolve_conversation(world, agent, first.conversation_id)
    assert chosen.conversation_id == first.conversation_id
    with pytest.raises(NotFoundError):
        resolve_conversation(world, agent, "conv-nope")


def test_agent_record_keeps_unknown_keys_and_rejects_bad_fields(world):
    agent = resolve_or_create_agent(world, None)
    path = world.home.agent_file(agent.id)
    data = path.read_text(encoding="utf-8").replace('"model"', '"futureField": 1, "model"')
    path.write_text(data, encoding="utf-8")
    renamed = rename_agent(world.home, agent.id, "renamed")
    assert renamed.extra == {"futureField": 1}
    assert '"futureField": 1' in path.read_text(encoding="utf-8")
    path.write_text(data.replace('"contextWindow": null', '"contextWindow": -5'), "utf-8")
    with pytest.raises(CorruptFileError, match="contextWindow"):
        resolve_agent(world, agent.id)


def test_resolving_without_an_agent_creates_nothing(world):
    with pytest.raises(NotFoundError, match="no agent yet"):
        resolve_agent(world, None)
    assert list_agents(world.home) == []
