"""How a reflection outcome reads on stderr: the one `☾ reflection` line (SPEC §7.8)."""

from __future__ import annotations

from mini_letta.reflection.outcome import ReflectionOutcome


def render_outcome_line(outcome: ReflectionOutcome) -> str:
    if outcome.status is None:
        return f"  ☾ reflection skipped: {outcome.skip_reason} — {outcome.message}"
    return f"  ☾ reflection {outcome.run_id}: {outcome.status} — {outcome.message}"
