"""How calls, events and a conversation's history read as ACP session updates."""

from __future__ import annotations

from pathlib import Path

import pytest

from mini_letta.acp.server import is_conversation_name, prompt_text
from mini_letta.acp.updates import replay_updates, updates_for_event, view_tool_call
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.loop.events import (
    AssistantDelta,
    CompactionEvent,
    ThoughtDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from mini_letta.tools.base import ToolResult
from mini_letta.workspace import World, new_agent
from mini_letta.workspace import resolve_conversation as open_store
from support.groups import ACP

pytestmark = ACP  # the SDK is imported by the tests, not at collection

CWD = Path("/work/project")
MEMORY = Path("/home/me/.mini-letta/agents/a/memory")


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "title", "paths"),
    [
        ("Read", '{"path": "src/a.py"}', "read", "Read src/a.py", (str(CWD / "src/a.py"),)),
        ("Write", '{"path": "n.txt", "content": "hi"}', "edit", "Write n.txt (2 characters)",
         (str(CWD / "n.txt"),)),
        ("Bash", '{"command": "ls -la"}', "execute", "Bash: ls -la", ()),
        ("Grep", '{"pattern": "TODO"}', "search", 'Grep {"pattern": "TODO"}', ()),
        ("memory", '{"command": "view", "path": "system/human.md"}', "edit", "memory: view",
         (str(MEMORY / "system/human.md"),)),
        ("conversation_search", '{"query": "pnpm"}', "search", 'conversation_search {"query": "pnpm"}', ()),  # noqa: E501
        ("SomethingNew", "{}", "other", "SomethingNew {}", ()),
        ("Read", "{not json", "read", "Read", ()),
        ("Read", '{"path": "a\\u0000b"}', "read", "Read a\x00b", ()),
    ],
    ids=["read", "write", "bash", "grep", "memory", "recall", "unknown", "bad-json", "nul-path"],
)  # fmt: skip
def test_a_tool_call_has_a_kind_a_title_and_its_files(name, arguments, kind, title, paths):
    view = view_tool_call(ToolCall("c1", name, arguments), CWD, MEMORY)
    assert (view.kind, view.title, view.paths) == (kind, title, paths)


def test_a_write_shows_its_content_as_a_new_file_and_a_command_shows_none():
    write = view_tool_call(ToolCall("c1", "Write", '{"path": "n", "content": "hi"}'), CWD, None)
    assert write.change == (None, "hi")
    bash = view_tool_call(ToolCall("c2", "Bash", '{"command": "x", "content": "y"}'), CWD, None)
    assert bash.change is None and bash.content() == []


def test_turn_events_become_chunks_calls_and_results():
    call = ToolCall("c1", "Edit", '{"path": "a.py", "old_string": "x", "new_string": "y"}')
    (chunk,) = updates_for_event(AssistantDelta("Hel"), CWD, None)
    assert (chunk.session_update, chunk.content.text) == ("agent_message_chunk", "Hel")
    assert updates_for_event(AssistantDelta(""), CWD, None) == []
    (reasoning,) = updates_for_event(ThoughtDelta("Hmm"), CWD, None)
    assert (reasoning.session_update, reasoning.content.text) == ("agent_thought_chunk", "Hmm")
    assert updates_for_event(ThoughtDelta(""), CWD, None) == []
    (start,) = updates_for_event(ToolCallEvent(call), CWD, None)
    assert (start.session_update, start.kind, start.status) == ("tool_call", "edit", "pending")
    (diff,) = start.content  # the change, from the arguments alone
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff",
        "/work/project/a.py",
        "x",
        "y",
    )
    assert start.raw_input == {"path": "a.py", "old_string": "x", "new_string": "y"}
    (done,) = updates_for_event(ToolResultEvent(call, ToolResult("oops", True)), CWD, None)
    assert (done.session_update, done.status) == ("tool_call_update", "failed")
    assert done.tool_call_id == "c1"
    assert done.content[0].content.text == "oops"
    (thought,) = updates_for_event(CompactionEvent(12, 9000, 2000, "auto", "m1"), CWD, None)
    assert thought.session_update == "agent_thought_chunk"
    assert "12 messages" in thought.content.text


def test_a_conversation_replays_as_it_was_said(home, project, clock):
    world = World(home=home, cwd=project, environ={}, clock=clock)
    agent = new_agent(world, name="replayed")
    store = open_store(world, agent, None, new=True)
    call = ToolCall("c9", "Read", '{"path": "a.txt"}')
    store.append(
        [
            Message("m1", "user", "read a.txt", "2026-01-01T00:00:00Z"),
            Message("m2", "assistant", "Reading.", "2026-01-01T00:00:01Z", tool_calls=(call,)),
            Message("m3", "tool", "hello", "2026-01-01T00:00:02Z", tool_call_id="c9", name="Read"),
            Message("m4", "summary", "(notes)", "2026-01-01T00:00:03Z"),
            Message("m5", "assistant", "It says hello.", "2026-01-01T00:00:04Z"),
        ]
    )
    updates = list(replay_updates(store, project, None))
    assert [u.session_update for u in updates] == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert updates[2].locations[0].path == str(project / "a.txt")
    assert (updates[3].status, updates[4].content.text) == ("completed", "It says hello.")


def test_a_prompt_reads_its_text_embedded_files_and_links():
    from acp import text_block
    from acp.schema import EmbeddedResourceContentBlock, ResourceContentBlock, TextResourceContents

    blocks = [
        text_block("explain this"),
        EmbeddedResourceContentBlock(
            type="resource", resource=TextResourceContents(uri="file:///p/a.py", text="x = 1")
        ),
        ResourceContentBlock(type="resource_link", name="b.py", uri="file:///p/b.py"),
    ]
    assert (
        prompt_text(blocks) == "explain this\n\nfile:///p/a.py:\n```\nx = 1\n```\n@file:///p/b.py"
    )


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("conv-6f1c0f6e-3d2a-4b8e-9a51-0c2e7d1f9b3a", True),
        ("../../agent-x/conversations/conv-1", False),
        ("..", False),
        ("a\\b", False),
        ("a\x00b", False),
        ("", False),
        (" conv-1", False),
        ("c" * 201, False),
    ],
    ids=["conversation-id", "traversal", "dotdot", "backslash", "nul", "empty", "space", "long"],
)
def test_a_session_id_is_one_plain_name(text, ok):
    assert is_conversation_name(text) is ok
