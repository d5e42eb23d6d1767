"""chat --input-format stream-json: one process, one user message per line, until end of input."""

from __future__ import annotations

import json

import pytest

from mini_letta.cli.stream_input import InputLineError, parse_input_line

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_each_line_is_answered_with_events_and_a_result(cli):
    lines = [
        json.dumps({"type": "user", "content": "one"}),
        json.dumps("two"),
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": "three"}]},
            }
        ),
    ]
    result = cli("chat", "--input-format", "stream-json", stdin="\n".join(lines) + "\n")
    assert result.code == 0, result.stderr
    events = _events(result.stdout)
    assert events[0]["type"] == "system" and events[0]["tools"] == ["memory"]
    results = [e for e in events if e["type"] == "result"]
    assert [r["result"] for r in results] == [
        f"（mock）我听到了：{t}" for t in ("one", "two", "three")
    ]
    assert len({r["conversationId"] for r in results}) == 1
    assert [e["type"] for e in events[1:5]] == ["message", "message", "result", "message"]


def test_bad_lines_get_an_error_event_and_the_process_goes_on(cli):
    stdin = "\n".join(
        [
            "{not json",
            json.dumps({"type": "control_request"}),
            json.dumps({"type": "user", "content": "   "}),
            "",
            json.dumps([1, 2]),
            json.dumps({"type": "user", "content": "still here"}),
        ]
    )
    result = cli("chat", "--input-format", "stream-json", stdin=stdin)
    assert result.code == 0, result.stderr
    events = _events(result.stdout)
    errors = [e for e in events if e["type"] == "error"]
    assert [e["line"] for e in errors] == [1, 2, 3, 5]
    assert "invalid JSON" in errors[0]["message"]
    assert "only user messages" in errors[1]["message"]
    assert events[-1]["type"] == "result" and events[-1]["result"].endswith("still here")


def test_empty_input_ends_cleanly(cli):
    result = cli("chat", "--input-format", "stream-json", stdin="")
    assert result.code == 0
    assert [e["type"] for e in _events(result.stdout)] == ["system"]


def test_stream_input_needs_stream_json_output(cli):
    result = cli("chat", "--input-format", "stream-json", "--output-format", "text", stdin="")
    assert result.code == 2 and "needs --output-format stream-json" in result.stderr


def test_stream_input_with_tool_calls(cli, project):
    script = [
        {"toolCalls": [{"name": "Glob", "arguments": {"pattern": "*.txt"}}]},
        "found them",
        "second answer",
    ]
    (project / "s.json").write_text(json.dumps(script))
    (project / "a.txt").write_text("x")
    stdin = json.dumps({"type": "user", "content": "find"}) + "\n" + json.dumps("again") + "\n"
    result = cli("chat", "--input-format", "stream-json", "--model", "script:s.json", stdin=stdin)
    assert result.code == 0, result.stderr
    events = _events(result.stdout)
    tool_results = [e for e in events if e["type"] == "tool_result"]
    assert tool_results[0]["content"] == "a.txt"
    assert [e["result"] for e in events if e["type"] == "result"] == ["found them", "second answer"]


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ('"hello"', "hello"),
        ('{"type": "user", "content": "hi"}', "hi"),
        ('{"content": "no type"}', "no type"),
        ('{"type": "user", "content": [{"type": "text", "text": "a"}, "b"]}', "a\nb"),
        ('{"type": "user", "message": {"content": "nested"}}', "nested"),
    ],
    ids=["string", "object", "no-type", "parts", "sdk-shape"],
)
def test_parse_input_line(line, text):
    assert parse_input_line(line) == text


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("nope", "invalid JSON"),
        ("42", "expected a JSON object"),
        ('{"type": "user"}', "no content"),
        ('{"type": "user", "content": 5}', "must be a string or a list"),
        ('{"type": "user", "content": [{"type": "image"}]}', "content parts must be"),
        ('{"type": "user", "content": [{"type": "text", "text": 1}]}', 'needs a string "text"'),
        ('""', "empty"),
    ],
    ids=["not-json", "number", "no-content", "content-type", "image-part", "text-type", "empty"],
)
def test_parse_input_line_refusals(line, needle):
    with pytest.raises(InputLineError, match=needle):
        parse_input_line(line)
