"""The world a CLI command acts in: its terminal's environment and directory, the real clock."""

from __future__ import annotations

from mini_letta.cli.terminal import Terminal, current_terminal
from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.workspace import World, find_project


def current_world() -> World:
    return world_of(current_terminal())


def world_of(terminal: Terminal) -> World:
    environ = dict(terminal.environ)
    home = Home.from_env(environ)
    project = find_project(terminal.cwd, home, environ).dir
    return World(home=home, cwd=terminal.cwd, environ=environ, clock=SystemClock(), project=project)
