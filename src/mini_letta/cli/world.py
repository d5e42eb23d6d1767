"""The real world for the CLI: this process's environment, working directory and clock."""

from __future__ import annotations

import os
from pathlib import Path

from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.workspace import World


def current_world() -> World:
    environ = dict(os.environ)
    return World(home=Home.from_env(environ), cwd=Path.cwd(), environ=environ, clock=SystemClock())
