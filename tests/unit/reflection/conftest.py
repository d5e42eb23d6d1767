"""Fixtures the reflection tests share: the agent's conversation (the agent is the suite's
`agent`, a copy of a fresh one)."""

from __future__ import annotations

import pytest

from mini_letta.workspace import resolve_conversation


@pytest.fixture
def store(world, agent):
    return resolve_conversation(world, agent, None)
