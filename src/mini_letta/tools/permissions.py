"""Permission modes and per-run tool rules: which calls run, which ask, which are refused.

`default` asks before edits and commands (and, headless, refuses them because nobody can
answer); `acceptEdits` lets file edits through; `bypassPermissions` allows everything; `plan` is
read-only. Memory edits are the agent's own notebook and always allowed outside `plan`.
Per run, `--disallowed-tools` refuses by name (first), then `plan` refuses anything but reads,
then `--allowed-tools` allows by name, then the mode's table decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from mini_letta.structs import Struct

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


def decide(
    mode: PermissionMode,
    kind: str,
    name: str = "",
    allowed: Iterable[str] = (),
    disallowed: Iterable[str] = (),
) -> Decision:
    """`ask` means the caller needs an approver; with none (headless), it must refuse."""
    if name and _named(name, disallowed):
        return "deny"
    table = _TABLE[mode]
    if mode == "plan" and table.get(kind, "deny") == "deny":
        return "deny"
    if name and _named(name, allowed):
        return "allow"
    return table.get(kind, "ask")


def _named(name: str, names: Iterable[str]) -> bool:
    """`name` is listed, or it is an MCP tool whose server is (`mcp__github` names them all)."""
    listed = set(names)
    if name in listed:
        return True
    server, sep, _ = name.removeprefix("mcp__").partition("__")
    return name.startswith("mcp__") and bool(sep) and f"mcp__{server}" in listed


class Refusal(Struct, frozen=True):
    """Why a call did not run, phrased for the model (and the user reading the log)."""

    name: str
    kind: str
    mode: PermissionMode

    def denied(self, disallowed: Iterable[str]) -> str:
        if _named(self.name, disallowed):
            return f"PermissionDenied: {self.name} is disallowed for this run (--disallowed-tools)"
        return (
            f"PermissionDenied: {self.name} is not allowed in {self.mode} mode "
            "(read-only; switch --permission-mode to let it change things)"
        )

    def unanswered(self) -> str:
        mode = "acceptEdits or bypassPermissions" if self.kind == "edit" else "bypassPermissions"
        return (
            f"PermissionDenied: {self.name} needs approval and this run is headless, so nobody "
            f"can give it; allow it with --allowed-tools {self.name} or --permission-mode {mode}"
        )

    def declined(self) -> str:
        return f"PermissionDenied: the user declined to run {self.name}"
