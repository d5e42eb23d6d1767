"""Which tools an agent gets, and the runner's handling of bad calls and misbehaving tools."""

from __future__ import annotations

from typing import Any

import pytest

from mini_letta.errors import InvalidValueError
from mini_letta.llm.base import ToolSpec
from mini_letta.llm.tokens import estimate_schema_tokens, estimate_tokens
from mini_letta.tools.base import ToolResult, Toolset
from mini_letta.tools.registry import (
    ALL_TOOLS,
    TOOL_CLASSES,
    build_toolset,
    choose_tool_names,
    parse_tool_names,
    split_tool_list,
)
from mini_letta.tools.schema import argument_problem
from support.tools import call_tool, make_context

CODING = ("Read", "Write", "Edit", "Bash", "Grep", "Glob")
RECALL = ("conversation_search", "memory_search")


def test_registry_names_every_tool():
    assert set(TOOL_CLASSES) == {*CODING, "memory", *RECALL, "Skill"}
    assert TOOL_CLASSES["memory"] == "mini_letta.tools.memory_tool:MemoryTool"


def test_parse_tool_names_is_case_insensitive_and_deduplicates():
    assert parse_tool_names(split_tool_list("read, GREP bash,read"), "--tools") == (
        "Read",
        "Grep",
        "Bash",
    )
    assert parse_tool_names(split_tool_list(""), "--tools") == ()


def test_unknown_tool_name_lists_the_allowed_ones():
    with pytest.raises(
        InvalidValueError, match="unknown tool 'WebFetch' in --tools .allowed: Read, Write"
    ):
        parse_tool_names(["WebFetch"], "--tools")


def test_choose_tool_names_precedence():
    assert choose_tool_names("openai", explicit=("Read",), configured=("Bash",)) == ("Read",)
    assert choose_tool_names("openai", configured=("bash", "grep")) == ("Bash", "Grep")
    assert choose_tool_names("openai", explicit=(), configured=("Bash",)) == ()
    chosen = choose_tool_names("anthropic", disallowed={"Bash", "Write"})
    assert "Bash" not in chosen and "Write" not in chosen and "Read" in chosen


def test_choose_tool_names_has_one_order_whatever_the_order_given():
    """The schemas open every request: a reordered flag must not change the cached prefix."""
    assert choose_tool_names("openai", explicit=("memory", "Grep", "Read")) == (
        "Read", "Grep", "memory",
    )  # fmt: skip
    assert choose_tool_names("openai", configured=("grep", "bash")) == ("Bash", "Grep")


def test_real_models_get_every_tool_and_the_mock_gets_memory_alone():
    assert choose_tool_names("openai") == (*CODING, "memory", *RECALL, "Skill")
    assert choose_tool_names("script") == ALL_TOOLS
    assert choose_tool_names("mock") == ("memory",)
    assert [tool.spec.name for tool in build_toolset(ALL_TOOLS).tools] == list(ALL_TOOLS)


def test_coding_tool_schemas_are_lean():
    toolset = build_toolset(CODING)
    for tool in toolset.tools:
        assert tool.spec.parameters["type"] == "object"
        assert tool.kind in ("read", "edit", "execute")
    total = sum(
        estimate_tokens(t.spec.name)
        + estimate_tokens(t.spec.description)
        + estimate_schema_tokens(t.spec.parameters)
        for t in toolset.tools
    )
    assert total < 1000


class Exploding:
    spec = ToolSpec("Explode", "Always fails.", {"type": "object", "properties": {}})
    kind = "read"

    def run(self, args: dict[str, Any], ctx) -> ToolResult:
        raise ZeroDivisionError("division by zero")


class Chatty:
    spec = ToolSpec("Chatty", "Talks a lot.", {"type": "object", "properties": {}})
    kind = "read"

    def run(self, args: dict[str, Any], ctx) -> ToolResult:
        return ToolResult("z" * 100_000)


@pytest.mark.parametrize(
    ("name", "raw", "needle"),
    [
        ("Explode", "{}", "ZeroDivisionError: division by zero"),
        ("Nope", "{}", "UnknownTool: no tool named 'Nope' (available: Explode, Chatty)"),
        ("Explode", "{not json", "ToolInputError: arguments are not valid JSON"),
        ("Explode", "[1]", "ToolInputError: arguments must be a JSON object"),
    ],
    ids=["raises", "unknown", "malformed", "not-object"],
)
def test_runner_turns_failures_into_results(project, clock, name, raw, needle):
    toolset = Toolset((Exploding(), Chatty()))
    result = call_tool(name, raw, make_context(project, clock), toolset)
    assert result.is_error and needle in result.content


def test_runner_caps_any_tool_output(project, clock):
    result = call_tool(
        "Chatty", {}, make_context(project, clock, output_cap=1000), Toolset((Chatty(),))
    )
    assert len(result.content) <= 1000 and "omitted" in result.content


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"path": "a"}, None),
        ({}, "'path' is required"),
        ({"path": None}, "'path' is required"),
        ({"path": 1}, "'path' must be a string, got int"),
        ({"path": "a", "n": "3"}, "'n' must be an integer, got str"),
        ({"path": "a", "n": True}, "'n' must be an integer, got bool"),
        ({"path": "a", "n": 2.5}, "'n' must be an integer, got float"),
        ({"path": "a", "x": 2.5}, None),
        ({"path": "a", "flag": 1}, "'flag' must be boolean, got int"),
        ({"path": "a", "extra": [1]}, None),
    ],
    ids=[
        "ok",
        "missing",
        "null",
        "wrong-str",
        "wrong-int",
        "bool-as-int",
        "float-as-int",
        "number",
        "bool",
        "extra-ignored",
    ],
)
def test_argument_problem(args, problem):
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "flag": {"type": "boolean"},
        },
        "required": ["path"],
    }
    assert argument_problem(schema, args) == problem
