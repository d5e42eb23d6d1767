"""Fixtures for recall tests: an agent with memory, a way to write messages, its Recall."""

from __future__ import annotations

import pytest

from mini_letta.conversations.registry import create_conversation
from mini_letta.search.recall import Recall


@pytest.fixture
def recall(world, agent):
    return Recall(world.home, agent.id)


@pytest.fixture
def new_conversation(world, agent):
    return lambda: create_conversation(world.home, agent.id, world.clock)
