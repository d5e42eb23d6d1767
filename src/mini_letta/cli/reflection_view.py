"""How a reflection outcome reads on stderr: the one `☾ reflection` line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mini_letta.cli.terminal import echo
from mini_letta.reflection.api import take_outcomes

if TYPE_CHECKING:
    from mini_letta.reflection.api import PostTurnOutcome, ReflectionOutcome
    from mini_letta.workspace import World


def render_outcome_line(outcome: ReflectionOutcome | PostTurnOutcome) -> str:
    """The `☾` line, after a warning line per conversation whose watermark was lost."""
    from mini_letta.reflection.api import BackgroundLaunch, Queued

    if isinstance(outcome, Queued):
        return f"  ☾ reflection queued: {outcome.message}"
    if isinstance(outcome, BackgroundLaunch):
        return f"  ☾ reflection started: {outcome.message}"
    streak = ""
    if not outcome.ok and outcome.consecutive_failures > 1:
        streak = (
            f" ({outcome.consecutive_failures} failures in a row; automatic retries wait "
            "longer each time; `mini-letta reflections list --failed` shows them)"
        )
    if outcome.fix is not None:
        streak += f"; to fix it: {outcome.fix}"
    if outcome.status is None:
        return f"  ☾ reflection skipped: {outcome.skip_reason} — {outcome.message}{streak}"
    warnings = [
        f"mini-letta: warning: conversation {conversation_id}: the message its reflection "
        "watermark named is gone from the log (cut or replaced), so this run replayed from the "
        "start"
        for conversation_id in outcome.lost_watermarks
    ]
    return "\n".join(
        [
            *warnings,
            f"  ☾ reflection {outcome.run_id}: {outcome.status} — {outcome.message}{streak}",
        ]
    )


def show_waiting_outcomes(world: World, agent_id: str) -> None:
    """Print, once, the outcomes of background and queued runs that no terminal saw."""
    for outcome in take_outcomes(world.home, agent_id, world.clock):
        echo(render_outcome_line(outcome), err=True)
