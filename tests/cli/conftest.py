"""Fixtures of the CLI process tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.interrupt import ModelCommands


@pytest.fixture(scope="session")
def model_commands() -> Iterator[ModelCommands]:
    """One forker per test worker for the commands that talk to a real model's SDK (started on
    first use; each command is its own forked process with its own environment and folder)."""
    commands = ModelCommands()
    yield commands
    commands.close()
