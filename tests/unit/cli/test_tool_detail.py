"""A tool call in full (/expand, Ctrl-O): read back from the log, every argument and all output."""

from __future__ import annotations

import json

import pytest

from mini_letta.cli.fit import text_columns
from mini_letta.cli.tool_detail import load_last_turn_calls, pick_calls, render_call_detail
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.conversations.registry import create_conversation
from mini_letta.errors import MiniLettaError

OLD = ToolCall("c0", "Read", '{"path": "old.txt"}')
EDIT_ARGS = {"path": "n.txt", "old_string": "a\nb", "new_string": "c"}
EDIT = ToolCall("c1", "Edit", json.dumps(EDIT_ARGS))
BASH = ToolCall("c2", "Bash", '{"command": "pytest -q"}')
LOST = ToolCall("c3", "Bash", "{not json")


def _turn_log(home, clock):
    store = create_conversation(home, "agent-test", clock)
    store.append([
        Message("m0", "user", "earlier", "t"),
        Message("m1", "assistant", "", "t", tool_calls=(OLD,)),
        Message("m2", "tool", "old", "t", tool_call_id="c0"),
        Message("m3", "user", "fix it", "t"),
        Message("m4", "assistant", "Editing.", "t", tool_calls=(EDIT,)),
        Message("m5", "tool", "Edited n.txt", "t", tool_call_id="c1"),
        Message("m6", "assistant", "", "t", tool_calls=(BASH, LOST)),
        Message("m7", "tool", "1 failed\n" + "E   " + "x" * 100, "t", tool_call_id="c2",
                is_error=True),
    ])  # fmt: skip
    return store


def test_the_last_turns_calls_come_in_order_with_their_results(home, clock):
    details = load_last_turn_calls(_turn_log(home, clock))
    assert [(d.number, d.call.id) for d in details] == [(1, "c1"), (2, "c2"), (3, "c3")]
    assert details[0].result is not None and details[0].result.content == "Edited n.txt"
    assert details[1].result is not None and details[1].result.is_error
    assert details[2].result is None  # the turn ended before it ran


def test_a_call_in_full_shows_each_argument_and_all_of_its_output(home, clock):
    edit, bash, lost = load_last_turn_calls(_turn_log(home, clock))
    assert render_call_detail(edit, None) == [
        "  ⚙ [1] Edit n.txt ✓",
        "  arguments:",
        "    path: n.txt",
        "    old_string:",
        "        a",
        "        b",
        "    new_string: c",
        "  output (1 line):",
        "    Edited n.txt",
    ]
    shown = render_call_detail(bash, 40)
    assert shown[0] == "  ⚙ [2] Bash: pytest -q ✗" and "  error (2 lines):" in shown
    assert all(text_columns(row) <= 40 for row in shown)
    assert "x" * 100 in "".join(row.strip() for row in shown)  # wrapped, not cut
    assert render_call_detail(lost, None)[1:] == [
        "  arguments (not JSON):",
        "    {not json",
        "  no result: the turn was interrupted before it finished",
    ]


def test_picking_the_last_one_all_or_a_number(home, clock):
    details = load_last_turn_calls(_turn_log(home, clock))
    assert pick_calls(details, "") == details[-1:]
    assert pick_calls(details, "all") == details
    assert pick_calls(details, "2") == [details[1]]
    with pytest.raises(MiniLettaError, match="no tool call 4 in the last turn; pick 1 to 3"):
        pick_calls(details, "4")
    with pytest.raises(MiniLettaError, match="no tool call x"):
        pick_calls(details, "x")
    with pytest.raises(MiniLettaError, match="no tool calls in the last turn"):
        pick_calls([], "")


def test_a_turn_without_tools_has_nothing_to_expand(home, clock):
    store = _turn_log(home, clock)
    store.append([Message("m8", "user", "thanks", "t"), Message("m9", "assistant", "ok", "t")])
    assert load_last_turn_calls(store) == []
