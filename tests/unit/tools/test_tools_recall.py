"""conversation_search and memory_search as the runner calls them, for both agents."""

from __future__ import annotations

import json

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.conversations.registry import create_conversation
from mini_letta.reflection.run.tools import reflection_tools
from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
from mini_letta.tools.recall import ConversationSearchTool, MemorySearchTool
from support.recall import say

TOOLS = Toolset((ConversationSearchTool(), MemorySearchTool()))


@pytest.fixture
def ctx(world, agent):
    return ToolContext(cwd=world.cwd, clock=world.clock, agent_id=agent.id, home=world.home)


def call(name, ctx, **args):
    return execute_tool_call(ToolCall("c1", name, json.dumps(args)), TOOLS, ctx)


def test_conversation_search_lists_ids_times_and_snippets(world, agent, ctx):
    store = create_conversation(world.home, agent.id, world.clock)
    msg = say(store, "user", "报错信息在 deploy.log 里", "2026-02-03T04:05:06.000Z")
    result = call("conversation_search", ctx, query="报错", role="user", since="2026-02-01")
    assert not result.is_error
    cite = f"{store.conversation_id} {msg} 2026-02-03T04:05:06.000Z user"
    assert result.content.splitlines() == [
        "1 message(s) for '报错', best first:",
        f"- [{cite}] **报错**信息在 deploy.log 里",
    ]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"query": "x", "role": "tool"}, "'role' must be user or assistant"),
        ({"query": "x", "limit": 0}, "'limit' must be between 1 and 50"),
        ({"query": "x", "since": "last week"}, "since 'last week' is not a date"),
        ({"query": ""}, "ToolInputError: query must not be empty"),
    ],
    ids=["role", "limit", "date", "empty"],
)
def test_bad_arguments_come_back_to_the_model(ctx, args, needle):
    result = call("conversation_search", ctx, **args)
    assert result.is_error and needle in result.content


def test_without_a_home_the_tool_says_so(world):
    bare = ToolContext(cwd=world.cwd, clock=world.clock)
    result = call("memory_search", bare, query="x")
    assert result.is_error and "search is not available" in result.content


def test_memory_search_gives_path_and_line(ctx):
    result = call("memory_search", ctx, query="mini-letta agent")
    assert result.content.splitlines()[1].startswith("- system/persona.md:")


def test_the_reflection_agent_can_search_too():
    names = {tool.spec.name for tool in reflection_tools()}
    assert {"conversation_search", "memory_search"} <= names
