"""Permission modes: which tool kinds run, which ask, which are refused.

`default` asks before edits and commands (and, headless, refuses them because nobody can
answer); `acceptEdits` lets file edits through; `bypassPermissions` allows everything; `plan` is
read-only. Memory edits are the agent's own notebook and always allowed outside `plan`.
"""

from __future__ import annotations

from typing import Literal

from mini_letta.errors import InvalidValueError

PermissionMode = Literal["default", "acceptEdits", "bypassPermissions", "plan"]
PERMISSION_MODES: tuple[PermissionMode, ...] = (
    "default",
    "acceptEdits",
    "bypassPermissions",
    "plan",
)
Decision = Literal["allow", "ask", "deny"]

_TABLE: dict[PermissionMode, dict[str, Decision]] = {
    "default": {"read": "allow", "memory": "allow", "edit": "ask", "execute": "ask"},
    "acceptEdits": {"read": "allow", "memory": "allow", "edit": "allow", "execute": "ask"},
    "bypassPermissions": {"read": "allow", "memory": "allow", "edit": "allow", "execute": "allow"},
    "plan": {"read": "allow", "memory": "deny", "edit": "deny", "execute": "deny"},
}


def parse_permission_mode(value: str) -> PermissionMode:
    if value not in PERMISSION_MODES:
        raise InvalidValueError(
            f"invalid permission mode {value!r} (allowed: {', '.join(PERMISSION_MODES)})"
        )
    return value


def decide(mode: PermissionMode, kind: str) -> Decision:
    """`ask` means the caller needs an approver; with none (headless), it must refuse."""
    return _TABLE[mode].get(kind, "ask")
