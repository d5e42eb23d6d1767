"""The interactive session's bottom status line: agent, model, context use, reflection state.

Context use is the last model call's tokens (input and output) as a share of the model's window,
from the turn's own accounting, so drawing the line costs nothing. Reflection is `running` while
a background worker this session started is alive, else the last outcome it saw (`queued`,
`merged`, a skip, or a failure with its reason), else `idle`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mini_letta.cli.fit import fit_line, shorten, text_columns
from mini_letta.conversations.messages import Usage
from mini_letta.reflection.api import BackgroundLaunch, Queued, ReflectionOutcome
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mini_letta.cli.headless import ChatSession
    from mini_letta.reflection.api import PostTurnOutcome

TROUBLE = (
    "failed",
    "rejected",
    "merge_conflict",
    "not_merged",
    "dirty_uncommitted",
    "parent_dirty",
)


def describe_reflection(outcome: ReflectionOutcome | PostTurnOutcome | None) -> str:
    if outcome is None:
        return "idle"
    if isinstance(outcome, Queued):
        return "queued"
    if isinstance(outcome, BackgroundLaunch):
        return "started"
    if outcome.status is None:
        return f"skipped ({outcome.skip_reason})"
    if outcome.status in TROUBLE:
        reason = " ".join(outcome.message.split())
        return f"{outcome.status}: {shorten(reason, 60)}"
    return outcome.status.replace("_", " ")


def context_percent(usage: Usage | None, window: int) -> int | None:
    if usage is None or window <= 0:
        return None
    used = usage.input_tokens + usage.output_tokens
    return min(100, round(100 * used / window))


class SessionBar(Struct):
    """What the status line shows; the session updates it, the prompt draws `text()`."""

    agent: str
    model: str
    window: int
    running: Callable[[], int]  # background reflections alive now
    usage: Usage | None = None
    last: ReflectionOutcome | PostTurnOutcome | None = None
    conversation: str = ""

    def follow(self, session: ChatSession) -> None:
        """Show `session` (after /model, /agent, /resume...); another conversation's context
        use is unknown until its first turn."""
        self.agent, self.model = session.agent.name, session.setup.provider.handle
        self.window = session.setup.provider.context_window
        if session.store.conversation_id != self.conversation:
            self.conversation = session.store.conversation_id
            self.usage = None

    def saw(self, outcome: ReflectionOutcome | PostTurnOutcome) -> None:
        """A reflection outcome was shown (after a turn, or from a background worker)."""
        self.last = outcome

    def text(self, width: int | None = None) -> str:
        """The line, fitted to `width` columns: a long reflection reason gives way first,
        then the model's name, then the agent's, each to an ellipsis; in a very narrow
        window the model and the labels go, and the reflection state stays longest."""
        percent = context_percent(self.usage, self.window)
        used = "–" if percent is None else f"{percent}%"
        parts = {
            "reflection": "running" if self.running() else describe_reflection(self.last),
            "model": self.model,
            "agent": self.agent,
        }

        def line() -> str:
            agent, model, state = parts["agent"], parts["model"], parts["reflection"]
            return f" {agent} · {model} · context {used} · reflection {state} "

        for name, least in (("reflection", 12), ("model", 10), ("agent", 8)):
            over = 0 if width is None else text_columns(line()) - width
            if over > 0:
                parts[name] = shorten(parts[name], max(least, text_columns(parts[name]) - over))
        if width is None or text_columns(line()) <= width:
            return line()
        return fit_line(f" ☾ {parts['reflection']} · {used} · {parts['agent']} ", width)
