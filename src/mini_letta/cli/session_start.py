"""How the interactive session starts, from `mini-letta`'s own flags: which agent, a new
conversation or one to resume (`-r` with no ID: picked from a list), which model."""

from __future__ import annotations

from mini_letta.structs import Struct


class SessionStart(Struct, frozen=True):
    agent: str | None = None
    new: bool = False
    model: str | None = None
    resume: str | None = None  # an id; options.PICK: pick one; None: the current one
