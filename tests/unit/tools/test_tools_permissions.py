"""Permission modes and tool rules, decided per call and explained to the model when refused."""

from __future__ import annotations

import pytest

from mini_letta.tools.permissions import decide
from support.tools import call_tool, make_context

KINDS = ("read", "memory", "edit", "execute")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("default", ("allow", "allow", "ask", "ask")),
        ("acceptEdits", ("allow", "allow", "allow", "ask")),
        ("bypassPermissions", ("allow", "allow", "allow", "allow")),
        ("plan", ("allow", "deny", "deny", "deny")),
    ],
    ids=["default", "acceptEdits", "bypassPermissions", "plan"],
)
def test_mode_table(mode, expected):
    assert tuple(decide(mode, kind) for kind in KINDS) == expected


def test_rules_order_disallowed_then_plan_then_allowed():
    assert decide("bypassPermissions", "read", "Read", disallowed={"Read"}) == "deny"
    assert decide("default", "execute", "Bash", allowed={"Bash"}) == "allow"
    assert decide("plan", "execute", "Bash", allowed={"Bash"}) == "deny"
    assert decide("default", "execute", "Bash", allowed={"Bash"}, disallowed={"Bash"}) == "deny"


def test_headless_refusal_says_how_to_allow_it(project, clock):
    ctx = make_context(project, clock, permission_mode="default")
    result = call_tool("Bash", {"command": "touch made"}, ctx)
    assert result.is_error
    assert "headless" in result.content
    assert "--allowed-tools Bash" in result.content and "bypassPermissions" in result.content
    assert not (project / "made").exists()
    edit = call_tool("Write", {"path": "w.txt", "content": "x"}, ctx)
    assert "acceptEdits" in edit.content and not (project / "w.txt").exists()


def test_reads_run_without_asking_in_default_mode(project, clock):
    (project / "a.txt").write_text("hi\n")
    ctx = make_context(project, clock, permission_mode="default")
    assert not call_tool("Read", {"path": "a.txt"}, ctx).is_error


def test_plan_mode_refuses_changes(project, clock):
    ctx = make_context(project, clock, permission_mode="plan")
    result = call_tool("Write", {"path": "w.txt", "content": "x"}, ctx)
    assert result.is_error and "plan mode" in result.content


def test_disallowed_tool_is_refused_by_name(project, clock):
    ctx = make_context(project, clock, disallowed_tools=frozenset({"Grep"}))
    result = call_tool("Grep", {"pattern": "x"}, ctx)
    assert result.is_error and "--disallowed-tools" in result.content


def test_allowed_tool_runs_in_default_mode(project, clock):
    ctx = make_context(project, clock, permission_mode="default", allowed_tools=frozenset({"Bash"}))
    assert call_tool("Bash", {"command": "echo ok"}, ctx).content == "ok"


@pytest.mark.parametrize(("answer", "ran"), [(True, True), (False, False)], ids=["yes", "no"])
def test_approver_is_asked_with_a_readable_summary(project, clock, answer, ran):
    asked: list[str] = []

    def approve(call, summary):
        asked.append(summary)
        return answer

    ctx = make_context(project, clock, permission_mode="default", approve=approve)
    result = call_tool("Bash", {"command": "touch made"}, ctx)
    assert asked == ["Bash: touch made"]
    assert (project / "made").exists() is ran
    assert result.is_error is not ran
    if not ran:
        assert "the user declined" in result.content


def test_bad_arguments_are_refused_before_asking(project, clock):
    asked: list[str] = []
    ctx = make_context(
        project, clock, permission_mode="default", approve=lambda c, s: asked.append(s) or True
    )
    result = call_tool("Bash", {"command": ["ls"]}, ctx)
    assert result.is_error and asked == []
