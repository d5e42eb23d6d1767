"""Fixtures the sync tests share: two machines that sync through a bare remote.

The two machines are built once per test process and copied for each test (support/sync.py):
every test still starts from a desk that pushed, a laptop that cloned and a remote, its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.clock import FakeClock
from support.sync import (
    Machine,
    RemoteHistory,
    build_two_machines,
    copy_plain_checkout,
    copy_two_machines,
)


@pytest.fixture(scope="session")
def built_machines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("two-machines")
    build_two_machines(root, FakeClock())
    return root


@pytest.fixture
def machines(built_machines: Path, tmp_path: Path, clock) -> tuple[Machine, Machine, RemoteHistory]:
    """(desk, laptop, the remote's history): the desk pushed first, the laptop cloned."""
    first, second, shared = copy_two_machines(built_machines, tmp_path, clock)
    history = RemoteHistory(shared)
    history.check()
    return first, second, history


@pytest.fixture
def attacker_clone(machines, built_machines: Path, tmp_path: Path) -> Path:
    """The files of the two machines' remote's branch, in a folder of their own."""
    return copy_plain_checkout(built_machines, tmp_path)
