"""The editor's three answers, mapped onto the terminal's y / a / N."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mini_letta.acp.permission import build_editor_approver, mode_state
from mini_letta.conversations.messages import ToolCall
from mini_letta.tools.permissions import PERMISSION_MODES
from support.groups import ACP

if TYPE_CHECKING:
    from acp.schema import RequestPermissionResponse

pytestmark = ACP  # the SDK is imported by the tests, not at collection

BASH = ToolCall("c1", "Bash", '{"command": "pnpm test"}')
WRITE = ToolCall("c2", "Write", '{"path": "a.txt", "content": "x"}')


class Editor:
    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.asked: list[object] = []

    def __call__(self, update, options) -> RequestPermissionResponse:
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        self.asked.append(update)
        answer = self.answers.pop(0)
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )


def test_allow_once_asks_again_next_time_and_reject_refuses():
    editor = Editor("allow-once", "reject", None)
    approve = build_editor_approver(editor, Path("/p"), None)
    assert approve(BASH, "Bash: pnpm test") is True
    assert approve(BASH, "Bash: pnpm test") is False
    assert approve(BASH, "Bash: pnpm test") is False  # the client cancelled the question
    assert len(editor.asked) == 3
    first = editor.asked[0]
    assert (first.tool_call_id, first.title, first.kind) == ("c1", "Bash: pnpm test", "execute")


def test_allow_always_is_that_tool_for_the_rest_of_the_session():
    editor = Editor("allow-always", "reject")
    approve = build_editor_approver(editor, Path("/p"), None)
    assert approve(BASH, "Bash: pnpm test") is True
    assert approve(BASH, "Bash: ls") is True  # not asked again
    assert approve(WRITE, "Write a.txt") is False  # another tool still asks
    assert len(editor.asked) == 2
    assert [loc.path for loc in editor.asked[1].locations] == ["/p/a.txt"]


def test_the_modes_are_the_permission_modes():
    state = mode_state("acceptEdits")
    assert state.current_mode_id == "acceptEdits"
    assert [mode.id for mode in state.available_modes] == list(PERMISSION_MODES)
