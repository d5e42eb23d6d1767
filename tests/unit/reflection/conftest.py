"""Fixtures the reflection tests share: a fresh agent (with its memory) and its conversation."""

from __future__ import annotations

import pytest

from mini_letta.workspace import new_agent, resolve_conversation


@pytest.fixture
def agent(world):
    return new_agent(world)


@pytest.fixture
def store(world, agent):
    return resolve_conversation(world, agent, None)
