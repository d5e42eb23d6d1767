"""Bad model output and failing tools inside a real turn: each is a tool result, the turn goes on.

The scripted provider plays the model; tools run for real in the test's project folder.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import mini_letta.structs
from mini_letta.llm.base import ToolSpec
from mini_letta.loop.events import ToolResultEvent, TurnResult
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.tools.base import ToolResult, Toolset
from mini_letta.tools.registry import build_toolset
from mini_letta.workspace import new_agent, resolve_conversation


class Exploding:
    spec = ToolSpec("Explode", "Always fails.", {"type": "object", "properties": {}})
    kind = "read"

    def run(self, args: dict[str, Any], ctx) -> ToolResult:
        raise RuntimeError("tool bug")


def _turn(world, tmp_path, calls: list[dict[str, Any]], **options: Any):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"toolCalls": calls}, "All done."]), encoding="utf-8")
    agent = new_agent(world, model=f"script:{script}")
    store = resolve_conversation(world, agent, None)
    setup = build_turn_setup(world, agent, store, TurnOptions(**options))
    tools = build_toolset(("Read", "Write", "Edit", "Bash", "Grep", "Glob")).tools
    setup = mini_letta.structs.replace(setup, toolset=Toolset((*tools, Exploding())))
    events = list(run_turn(setup, "please work"))
    results = [event.result for event in events if isinstance(event, ToolResultEvent)]
    final = events[-1]
    assert isinstance(final, TurnResult)
    return results, final, store


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (
            {"name": "Read", "arguments": '{"path": "a.txt"'},
            "ToolInputError: arguments are not valid JSON",
        ),
        ({"name": "Teleport", "arguments": {}}, "UnknownTool: no tool named 'Teleport'"),
        ({"name": "Read", "arguments": {"path": ["a.txt"]}}, "'path' must be a string, got list"),
        (
            {"name": "Read", "arguments": {"path": "a.txt", "limit": "all"}},
            "'limit' must be an integer",
        ),
        ({"name": "Explode", "arguments": {}}, "RuntimeError: tool bug"),
        (
            {"name": "Bash", "arguments": {"command": "sleep 30", "timeout": 0.3}},
            "Timed out after 0.3s",
        ),
        ({"name": "Read", "arguments": {"path": "photo.jpg"}}, "BinaryFileError"),
        ({"name": "Read", "arguments": {"path": "/etc/hostname"}}, "outside the working directory"),
    ],
    ids=[
        "malformed-json",
        "unknown-tool",
        "wrong-type",
        "wrong-int",
        "raising-tool",
        "hanging-bash",
        "binary-read",
        "outside-path",
    ],
)
def test_bad_call_becomes_a_result_and_the_turn_goes_on(world, tmp_path, project, call, needle):
    (project / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    results, final, store = _turn(world, tmp_path, [call], permission_mode="bypassPermissions")
    assert len(results) == 1 and results[0].is_error
    assert needle in results[0].content
    assert (final.stop_reason, final.text, final.steps) == ("end_turn", "All done.", 2)
    roles = [message.role for _, message in store.tail(10)]
    assert roles == ["user", "assistant", "tool", "assistant"]
    tool_message = store.tail(2)[0][1]
    assert tool_message.is_error and needle in tool_message.content


def test_huge_output_is_capped_in_the_log(world, tmp_path):
    call = {"name": "Bash", "arguments": {"command": "yes 'a line of output' | head -c 5000000"}}
    results, final, store = _turn(world, tmp_path, [call], permission_mode="bypassPermissions")
    assert not results[0].is_error and len(results[0].content) <= 30_000
    assert "omitted" in results[0].content
    assert final.stop_reason == "end_turn"


def test_several_calls_in_one_step_all_get_results_in_order(world, tmp_path, project):
    (project / "a.txt").write_text("hello\n")
    calls = [
        {"name": "Read", "arguments": {"path": "a.txt"}},
        {"name": "Bash", "arguments": {"command": "echo hi"}},
        {"name": "Write", "arguments": {"path": "b.txt", "content": "x"}},
    ]
    results, final, _ = _turn(world, tmp_path, calls)  # default mode, headless
    assert [r.is_error for r in results] == [False, True, True]
    assert "headless" in results[1].content and "headless" in results[2].content
    assert not (project / "b.txt").exists()
    assert final.stop_reason == "end_turn"


def test_stream_broken_after_text_keeps_the_partial_answer(world, tmp_path):
    script = tmp_path / "broken.json"
    script.write_text(json.dumps([{"text": "half an ans", "error": "transient"}]))
    agent = new_agent(world, model=f"script:{script}")
    store = resolve_conversation(world, agent, None)
    setup = build_turn_setup(world, agent, store, TurnOptions())
    final = list(run_turn(setup, "tell me"))[-1]
    assert isinstance(final, TurnResult)
    assert final.stop_reason == "error" and "scripted transient error" in (final.error or "")
    kept = store.tail(1)[0][1]
    assert (kept.role, kept.content, kept.stop_reason) == ("assistant", "half an ans", "error")
