"""Fixtures the sync tests share: a bare remote and two machines that sync through it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.sync import Machine, RemoteHistory


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


@pytest.fixture
def machines(tmp_path: Path, clock, remote: Path):
    first = Machine(tmp_path / "desk", clock, remote, join=False)
    history = RemoteHistory(remote)
    first.sync()
    history.check()
    second = Machine(tmp_path / "laptop", clock, remote, join=True)
    return first, second, history
