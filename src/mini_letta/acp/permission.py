"""Approvals through the editor: a call the permission mode asks about becomes a
`session/request_permission` with three options, as the terminal's y / a / N.

`allow once` runs this call; `allow always` runs this tool for the rest of the session (the
terminal's `a`); `reject` (or the client cancelling the request) refuses it, and the model is
told the user declined. Which calls ask at all is the permission mode's table
(tools/permissions.py); the mode is the session's ACP mode, so the editor can switch it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mini_letta.acp.updates import view_tool_call
from mini_letta.conversations.messages import ToolCall
from mini_letta.tools.base import Approver
from mini_letta.tools.permissions import PERMISSION_MODES

if TYPE_CHECKING:
    from acp.schema import PermissionOption, RequestPermissionResponse, SessionModeState

ALLOW_ONCE = "allow-once"
ALLOW_ALWAYS = "allow-always"
REJECT = "reject"

# ACP mode id -> what the editor shows; the ids are the permission modes' own names.
MODE_NAMES = {
    "default": ("Ask", "Ask before edits and commands"),
    "acceptEdits": ("Accept edits", "Edit files without asking; ask before commands"),
    "bypassPermissions": ("Allow all", "Run everything without asking"),
    "plan": ("Plan", "Read only: no edits, no commands"),
}


def permission_options() -> list[PermissionOption]:
    from acp.schema import PermissionOption

    return [
        PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
        PermissionOption(
            option_id=ALLOW_ALWAYS, name="Allow always (this session)", kind="allow_always"
        ),
        PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
    ]


def chosen_option(response: RequestPermissionResponse) -> str | None:
    """The option the user picked; None when the client cancelled the question."""
    outcome = response.outcome
    return getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None


def build_editor_approver(
    ask: Callable[[Any, list[PermissionOption]], RequestPermissionResponse],
    cwd: Path,
    memory_dir: Path | None,
) -> Approver:
    """The approver a session's turns use; `ask(tool_call_update, options)` blocks for the
    editor's answer (and raises KeyboardInterrupt when the turn is cancelled meanwhile)."""
    from acp.schema import ToolCallUpdate

    always: set[str] = set()

    def approve(call: ToolCall, summary: str) -> bool:
        if call.name in always:
            return True
        view = view_tool_call(call, cwd, memory_dir)
        from acp.schema import ToolCallLocation

        update = ToolCallUpdate(
            tool_call_id=call.id,
            title=summary,
            kind=view.kind,
            status="pending",
            content=view.content() or None,
            locations=[ToolCallLocation(path=path) for path in view.paths],
            raw_input=view.arguments,
        )
        choice = chosen_option(ask(update, permission_options()))
        if choice == ALLOW_ALWAYS:
            always.add(call.name)
            return True
        return choice == ALLOW_ONCE

    return approve


def mode_state(current: str) -> SessionModeState:
    from acp.schema import SessionMode, SessionModeState

    return SessionModeState(
        current_mode_id=current,
        available_modes=[
            SessionMode(id=mode, name=MODE_NAMES[mode][0], description=MODE_NAMES[mode][1])
            for mode in PERMISSION_MODES
        ],
    )
