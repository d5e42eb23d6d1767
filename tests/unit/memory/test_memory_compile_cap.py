"""A single very large system file costs what its budget allows in the compiled prompt, not its
size: whole lines up to the budget, then a visible marker with the line to read on from."""

from __future__ import annotations

import os
import re

import pytest

from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.compile import FileCap, PromptCompiler, build_memory_section
from mini_letta.session import Session
from mini_letta.tools.files import ReadTool
from mini_letta.workspace import World
from support.agents import fresh_agent
from support.memory import commit_all, write_file

CAP = FileCap(400, estimate_tokens)
FRONT = "---\ndescription: notes\n---\n"


def _big(lines: int = 2_000) -> str:
    facts = (f"- fact number {n}: the deploy runbook step {n}\n" for n in range(lines))
    return FRONT + "".join(facts)


def _file_block(section: str, path: str) -> str:
    found = re.search(rf'<file path="{re.escape(path)}"[^>]*>\n(.*?)</file>', section, re.S)
    assert found is not None
    return found.group(1)


def test_a_large_system_file_is_cut_to_its_budget_with_a_marker_that_says_where_to_read_on():
    text = _big()
    section = build_memory_section({"system/notes.md": text.encode()}, CAP)
    block = _file_block(section, "system/notes.md")
    assert estimate_tokens(block) <= CAP.tokens
    shown = block.strip("\n").split("\n")
    marker = shown[-1]
    assert marker.startswith("[… ") and "system/notes.md" in marker and "budget of 400" in marker
    resume = int(re.search(r"offset=(\d+)", marker).group(1))
    file_lines = text.split("\n")
    assert file_lines[resume - 1] not in shown  # the first line not shown, by the Read numbering
    assert file_lines[resume - 2] == shown[-2]  # the last line shown comes just before it
    hidden = int(re.search(r"\[… (\d+) more line", marker).group(1))
    assert hidden == len(text.split("\n")) - 3 - (len(shown) - 1)  # body lines minus shown


def test_one_huge_line_is_cut_by_characters():
    text = FRONT + "x" * 200_000 + "\n"
    section = build_memory_section({"system/one.md": text.encode()}, CAP)
    block = _file_block(section, "system/one.md")
    assert estimate_tokens(block) <= CAP.tokens and "offset=4" in block


def test_files_within_budget_and_files_outside_system_are_untouched():
    small = FRONT + "- tabs\n"
    blobs = {"system/small.md": small.encode(), "notes/big.md": _big().encode()}
    assert build_memory_section(blobs, CAP) == build_memory_section(blobs)


def test_the_disk_cache_keeps_capped_and_uncapped_renderings_apart(memory_repo, tmp_path):
    root = memory_repo.path
    write_file(root, "system/notes.md", _big())
    commit_all(root)
    cache = tmp_path / "prompt-cache.json"
    whole = PromptCompiler(root, cache).memory_section()
    capped = PromptCompiler(root, cache, file_cap=lambda: CAP).memory_section()
    assert "not shown" in capped and "not shown" not in whole
    again = PromptCompiler(root, cache)
    assert again.memory_section() == whole and again.compiles == 0  # both kept in one file
    capped_again = PromptCompiler(root, cache, file_cap=lambda: CAP)
    assert capped_again.memory_section() == capped and capped_again.compiles == 0


@pytest.fixture
def world(home, project, clock) -> World:
    return World(home=home, cwd=project, environ={"PATH": os.environ["PATH"]}, clock=clock)


def test_a_chat_prompt_holds_a_large_system_file_at_its_budget_and_read_fetches_the_rest(world):
    agent = fresh_agent(world)
    memory = world.home.memory_dir(agent.id)
    text = _big(20_000)  # ~300k tokens
    write_file(memory, "system/notes.md", text)
    commit_all(memory)
    with Session(world, agent=agent.id) as session:
        prompt = session.setup.system_prompt()
        context = session.setup.tool_context
    assert estimate_tokens(prompt) < estimate_tokens(text) // 20
    marker = _file_block(prompt, "system/notes.md").strip("\n").split("\n")[-1]
    resume = int(re.search(r"offset=(\d+)", marker).group(1))
    assert f"memory path: {memory}" in prompt
    read = ReadTool().run({"path": str(memory / "system/notes.md"), "offset": resume}, context)
    assert not read.is_error and text.split("\n")[resume - 1] in read.content
