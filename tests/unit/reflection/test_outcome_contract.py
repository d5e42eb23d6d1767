"""Every launch outcome (a run, a skip, a queued or a detached launch) has one JSON shape."""

from __future__ import annotations

from mini_letta.reflection.policy.trigger import BackgroundLaunch
from mini_letta.reflection.state.outcome import Queued, ReflectionOutcome

COMMON = ["status", "skipReason", "message", "runId", "trigger", "conversationId"]


def test_each_kind_starts_with_its_flags_then_the_common_fields_in_order():
    ran = ReflectionOutcome("Merged.", status="merged", run_id="r1", conversation_id="c")
    shapes = {
        "run": (ran.to_json(), ["launched"]),
        "skip": (ReflectionOutcome("Busy.", skip_reason="busy").to_json(), ["launched"]),
        "queued": (Queued("step-count", "c", "Queued.").to_json(), ["launched", "queued"]),
        "detached": (BackgroundLaunch("step-count", "c", 42).to_json(), ["launched", "background"]),
    }
    for name, (data, flags) in shapes.items():
        keys = list(data)
        assert keys[: len(flags) + len(COMMON)] == flags + COMMON, name
    assert shapes["run"][0]["launched"] is True and shapes["skip"][0]["launched"] is False
    assert shapes["queued"][0]["launched"] is False and shapes["queued"][0]["queued"] is True
    assert shapes["detached"][0]["pid"] == 42 and shapes["detached"][0]["runId"] is None
    assert ReflectionOutcome.from_json(ran.to_json()) == ran
