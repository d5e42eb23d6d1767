"""The public API (api.py): its names, reached lazily from `mini_letta`, and its helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import mini_letta
from mini_letta import api
from mini_letta.settings import read_settings


def test_the_package_hands_out_the_public_names_and_no_others():
    assert mini_letta.Session is api.Session
    assert mini_letta.open_world is api.open_world
    assert mini_letta.create_agent is api.create_agent
    with pytest.raises(AttributeError, match="no attribute 'Sesion'"):
        _ = mini_letta.Sesion  # type: ignore[attr-defined]
    assert all(hasattr(api, name) for name in api.__all__)


def test_open_world_reads_the_given_environment_and_directory(tmp_path, clock):
    world = api.open_world(tmp_path, {"MINI_LETTA_HOME": str(tmp_path / "h")}, clock)
    assert world.home.root == tmp_path / "h" and world.cwd == tmp_path
    assert world.clock is clock and dict(world.environ) == {"MINI_LETTA_HOME": str(tmp_path / "h")}


def test_open_world_defaults_to_this_process():
    world = api.open_world()
    assert world.cwd == Path.cwd() and dict(world.environ) == dict(os.environ)


def test_create_agent_makes_the_projects_agent_with_its_reflection_settings(home, project, clock):
    world = api.World(home=home, cwd=project, environ={"PATH": os.environ["PATH"]}, clock=clock)
    agent = api.create_agent(world, name="librarian", reflection={"trigger": "off"})
    assert read_settings(home, project).current_agent_id() == agent.id
    assert agent.name == "librarian"
    with api.Session(world) as session:
        assert session.agent.id == agent.id
        assert session.agent.reflection == {"trigger": "off"}
        assert "the person I work with" in session.memory("system/human.md")
        with pytest.raises(api.MiniLettaError, match="stay inside memory"):
            session.memory("../agent.json")
