"""Fixtures of the CLI process tests."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mini_letta.home import Home
from mini_letta.structs import Struct
from support.cli import RunCli, project_snapshot
from support.interrupt import ModelCommands

MERGED = re.compile(r"^  ☾ reflection (\d{14}-[0-9a-f]{8}): merged — ")


@pytest.fixture(scope="session")
def model_commands() -> Iterator[ModelCommands]:
    """One forker per test worker for the commands that talk to a real model's SDK (started on
    first use; each command is its own forked process with its own environment and folder)."""
    commands = ModelCommands()
    yield commands
    commands.close()


class Reflected(Struct, frozen=True):
    agent_id: str
    run_id: str  # the reflection run that merged the turn


def _reflect_once(cli: RunCli, project: Path) -> Reflected:
    assert cli("chat", "-p", "我更喜欢用 tabs 缩进").code == 0
    result = cli("reflect")
    match = MERGED.match(result.stderr)
    assert result.code == 0 and match, result.stderr
    (agent,) = json.loads(cli("agents", "list", "--json").stdout)
    return Reflected(agent_id=agent["id"], run_id=match.group(1))


@pytest.fixture
def reflected(tmp_path_factory: pytest.TempPathFactory, home: Home, project: Path) -> Reflected:
    """The project's agent (the mock, made by its first chat) after a turn, "我更喜欢用 tabs
    缩进", and a reflection run that merged it: a copy of one made once per test process."""
    snapshot = project_snapshot("reflected", tmp_path_factory.getbasetemp(), _reflect_once)
    snapshot.copy_into(home.root, project)
    assert isinstance(snapshot.value, Reflected)
    return snapshot.value
