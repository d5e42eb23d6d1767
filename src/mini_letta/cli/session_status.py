"""The interactive session's small status surfaces: /status, /recompile and the pending line.

The system prompt shows memory as of one commit until a recompile point (context/prompt_pin.py);
these tell the user which commit, whether memory has moved past it, and what the conversation
has cost so far, with the share of input the provider's prompt cache served.
"""

from __future__ import annotations

from mini_letta.cli.render import describe_usage
from mini_letta.errors import MiniLettaError
from mini_letta.loop.pressure import measure_context
from mini_letta.loop.setup import TurnSetup
from mini_letta.structs import Struct

PENDING_LINE = "  · memory changed since this conversation's system prompt was compiled; /recompile"


def status_lines(setup: TurnSetup) -> list[str]:
    store = setup.store
    usage, calls = store.total_usage()
    lines = [
        f"conversation {store.conversation_id} · {setup.provider.handle}",
        f"  tokens:   {describe_usage(usage, calls)}",
    ]
    try:
        measure = measure_context(setup)
        lines.append(f"  context:  about {measure.tokens} of {measure.window} tokens")
    except MiniLettaError as exc:
        lines.append(f"  context:  unknown ({exc})")
    pinned = setup.pinned
    if pinned is not None:
        pin = pinned.pin()
        shown = pin.memory_commit[:12] if pin is not None else "HEAD (not pinned yet)"
        state = "recompile pending" if pinned.is_pending() else "up to date"
        lines.append(f"  memory:   the system prompt shows commit {shown} ({state})")
    return lines


def request_recompile(setup: TurnSetup) -> str:
    if setup.pinned is None:
        return "  This session's system prompt is fixed; nothing to recompile."
    setup.pinned.request_recompile()
    return "  The system prompt will show memory as it is now from the next turn."


class PendingNotice(Struct):
    """After a turn: one line when memory has moved past the prompt, once per memory commit."""

    shown_for: str | None = None

    def line(self, setup: TurnSetup) -> str | None:
        pinned = setup.pinned
        if pinned is None or not pinned.is_pending():
            return None
        head = pinned.head()
        if head == self.shown_for:
            return None
        self.shown_for = head
        return PENDING_LINE
