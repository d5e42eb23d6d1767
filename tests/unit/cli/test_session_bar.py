"""The bottom status line: agent, model, context use and the reflection state."""

from __future__ import annotations

from mini_letta.cli.session_bar import SessionBar
from mini_letta.conversations.messages import Usage
from mini_letta.reflection.outcome import Queued, ReflectionOutcome


def _bar(running: int = 0) -> SessionBar:
    return SessionBar("scout", "openai/gpt-4o", 1000, running=lambda: running)


def test_before_any_turn_the_context_is_unknown_and_reflection_idle():
    assert _bar().text() == " scout · openai/gpt-4o · context – · reflection idle "


def test_context_use_is_the_last_calls_tokens_over_the_window():
    bar = _bar()
    bar.usage = Usage(input_tokens=230, output_tokens=20)
    assert "context 25%" in bar.text()
    bar.usage = Usage(input_tokens=5000, output_tokens=0)
    assert "context 100%" in bar.text()


def test_reflection_state_follows_what_the_session_saw():
    bar = _bar()
    bar.saw(Queued("step-count", "conv-1", "waits for the running one"))
    assert bar.text().endswith("reflection queued ")
    bar.saw(ReflectionOutcome("merged 2 commits", status="merged", run_id="r1"))
    assert bar.text().endswith("reflection merged ")
    bar.saw(ReflectionOutcome("the reviewer rejected\nit", status="not_merged", run_id="r2"))
    assert bar.text().endswith("reflection not_merged: the reviewer rejected it ")
    bar.saw(ReflectionOutcome("the gate refused: a secret", status="rejected", run_id="r3"))
    assert bar.text().endswith("reflection rejected: the gate refused: a secret ")
    bar.saw(ReflectionOutcome("nothing new", skip_reason="no_payload"))
    assert bar.text().endswith("reflection skipped (no_payload) ")
    assert _bar(running=1).text().endswith("reflection running ")
