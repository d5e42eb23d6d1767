"""The bottom status line: agent, model, context use and the reflection state."""

from __future__ import annotations

from mini_letta.cli.session_bar import SessionBar
from mini_letta.conversations.messages import Usage
from mini_letta.reflection.state.outcome import Queued, ReflectionOutcome


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


def test_in_a_narrow_window_the_reason_gives_way_first_then_the_names():
    from mini_letta.cli.fit import text_columns

    bar = _bar()
    bar.saw(ReflectionOutcome("the gate refused: " + "a secret " * 8, status="rejected"))
    assert text_columns(bar.text()) > 90  # no width: all of it
    at_60 = bar.text(60)
    assert text_columns(at_60) <= 60 and at_60.startswith(" scout · openai/gpt-4o · context – ")
    assert "reflection rejected:" in at_60 and at_60.rstrip().endswith("…")
    at_40 = bar.text(40)
    assert text_columns(at_40) <= 40 and at_40.startswith(" ☾ rejected:")
    assert "openai/gpt-4o" not in at_40  # the model's name gave way to the state
    assert text_columns(bar.text(12)) <= 12
