"""No reader of memory follows a symbolic link or reads a non-regular file.

Anything can plant a link in a memory working tree (a person's commit, a copied folder, a sync
remote before sync refused them): `notes/x.md -> /etc/passwd`, `system/pipe.md -> a FIFO`. The
tree, validate, export, the MCP server, the reflection agent's memory_list and the gate's walk
of `system/` each name it as not a plain file and never show or count what it points at.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from mini_letta.errors import MemfsError
from mini_letta.interop.export_files import render_agents_md
from mini_letta.memory.edits import list_memory_tree
from mini_letta.memory.history import validate_memory
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.gate.check import GateInput, GateLimits, check_gate
from mini_letta.reflection.run.tools import MemoryListTool
from mini_letta.tools.base import ToolContext
from support.agents import fresh_agent
from support.groups import MCP
from support.memory import commit_all, write_file

STOLEN = "STOLEN-DESCRIPTION"


@pytest.fixture
def memory(world) -> Path:
    agent = fresh_agent(world)
    return world.home.memory_dir(agent.id)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "passwd"
    target.write_text(f"---\ndescription: {STOLEN}\n---\nroot:x:0:0:root:/root:/bin/sh\n")
    return target


def _link(memory: Path, rel: str, target: Path) -> None:
    (memory / rel).parent.mkdir(parents=True, exist_ok=True)
    (memory / rel).symlink_to(target)


def test_the_tree_and_validate_name_a_link_and_never_read_its_target(memory, outside):
    _link(memory, "notes/x.md", outside)
    described = dict(list_memory_tree(memory))
    assert "symbolic link" in described["notes/x.md"]
    assert STOLEN not in repr(described)
    checked, problems = validate_memory(memory)
    assert [p.path for p in problems] == ["notes/x.md"]
    assert "symbolic link" in problems[0].problem and STOLEN not in problems[0].problem


def test_export_refuses_a_link_instead_of_copying_its_target(memory, outside):
    _link(memory, "notes/x.md", outside)
    with pytest.raises(MemfsError, match=r"notes/x\.md.*(symbolic link|symlink)"):
        render_agents_md(memory, "demo", None)


def test_a_linked_folder_is_never_entered(memory, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    write_file(elsewhere, "secret.md", f"---\ndescription: {STOLEN}\n---\nbody\n")
    _link(memory, "notes", elsewhere)
    assert STOLEN not in repr(list_memory_tree(memory))
    assert "notes/secret.md" not in dict(list_memory_tree(memory))


def test_the_reflection_agent_s_memory_list_never_reads_a_link(memory, outside, world):
    _link(memory, "notes/x.md", outside)
    ctx = ToolContext(cwd=world.cwd, clock=world.clock, memory_dir=memory)
    listed = MemoryListTool().run({}, ctx).content
    assert "notes/x.md" in listed and STOLEN not in listed


@pytest.mark.timeout(20)
def test_a_fifo_or_a_link_to_one_never_blocks_a_reader(memory, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _link(memory, "system/pipe.md", fifo)
    os.mkfifo(memory / "notes.md")
    described = dict(list_memory_tree(memory))
    assert "symbolic link" in described["system/pipe.md"]
    assert "not a regular file" in described["notes.md"]
    assert {p.path for p in validate_memory(memory)[1]} == {"notes.md", "system/pipe.md"}


@MCP
@pytest.mark.timeout(20)
def test_the_mcp_server_starts_and_lists_with_a_link_to_a_fifo_in_system(world, tmp_path):
    from mini_letta.interop.mcp_server import build_server

    agent = fresh_agent(world)
    memory = world.home.memory_dir(agent.id)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _link(memory, "system/pipe.md", fifo)
    server = build_server(world.home, agent.id, agent.name)  # used to block here
    result = asyncio.run(server.call_tool("memory_list", {}))
    text = "".join(getattr(part, "text", "") for part in result.content)
    assert "system/pipe.md" in text and "symbolic link" in text


def test_the_gate_never_counts_what_a_link_in_system_points_at(memory, tmp_path):
    big = tmp_path / "big.md"
    big.write_text("---\ndescription: big\n---\n" + "word " * 40_000)
    _link(memory, "system/big.md", big)
    commit_all(memory, "a link planted by hand")
    repo = GitRepo(memory)
    base = repo.head_sha()
    human = memory / "system" / "human.md"
    human.write_text(human.read_text() + "- Preference: tabs for indentation\n")
    commit_all(memory, "a small addition")
    facts = GateInput(
        transcript=(),
        slice_ids=frozenset(),
        limits=GateLimits(system_tokens=4_000, file_tokens=2_000),
    )
    reasons = check_gate(repo, base, repo.head_sha(), memory, facts)
    assert not [r for r in reasons if "budget" in r or "cap" in r], reasons
