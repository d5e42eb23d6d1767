"""Tool name -> class (imported on first use), and which tools an agent gets.

The toolset for a run is, first match wins: `--tools`, agent.json `tools`, else the default
for the model — every tool for a real (or scripted) model, `memory` alone for the mock, whose
small window should not carry schemas it never uses. `--disallowed-tools` removes names from
whatever was chosen. Names match case-insensitively and come back canonical, in the one order
of TOOL_CLASSES.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from typing import cast

from mini_letta.errors import InvalidValueError
from mini_letta.tools.base import Tool, Toolset, ToolSource

TOOL_CLASSES: Mapping[str, str] = {
    "Read": "mini_letta.tools.files:ReadTool",
    "Write": "mini_letta.tools.files:WriteTool",
    "Edit": "mini_letta.tools.files:EditTool",
    "Bash": "mini_letta.tools.shell:BashTool",
    "Grep": "mini_letta.tools.search:GrepTool",
    "Glob": "mini_letta.tools.search:GlobTool",
    "memory": "mini_letta.tools.memory_tool:MemoryTool",
    "conversation_search": "mini_letta.tools.recall:ConversationSearchTool",
    "memory_search": "mini_letta.tools.recall:MemorySearchTool",
    "Skill": "mini_letta.tools.skill_tool:SkillTool",  # only when the session has skills
}
ALL_TOOLS: tuple[str, ...] = tuple(TOOL_CLASSES)
MOCK_TOOLS: tuple[str, ...] = ("memory",)
_CANONICAL = {name.lower(): name for name in TOOL_CLASSES}
# compiled only when a name is not a built-in one: a plain turn compiles no regex for it
MCP_NAME = r"mcp__[A-Za-z0-9_-]{1,32}(?:__[A-Za-z0-9_-]{1,64})?"


def parse_tool_names(names: Iterable[str], where: str) -> tuple[str, ...]:
    """Canonical, de-duplicated names in the given order; an unknown name is refused."""
    out: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        canonical = _CANONICAL.get(name.lower())
        if canonical is None and re.fullmatch(MCP_NAME, name):
            canonical = name  # a configured MCP server's tool (or all of one server's)
        if canonical is None:
            raise InvalidValueError(
                f"unknown tool {name!r} in {where} (allowed: {', '.join(ALL_TOOLS)})"
            )
        if canonical not in out:
            out.append(canonical)
    return tuple(out)


def split_tool_list(text: str) -> list[str]:
    """`--tools "Read,Grep"` or `"Read Grep"`; an empty string means no tools."""
    return text.replace(",", " ").split()


def default_tool_names(provider: str) -> tuple[str, ...]:
    """Every tool for a real (or scripted) model; for the mock, memory alone."""
    return MOCK_TOOLS if provider == "mock" else ALL_TOOLS


def choose_tool_names(
    provider: str,
    explicit: tuple[str, ...] | None = None,
    configured: tuple[str, ...] | None = None,
    disallowed: Iterable[str] = (),
) -> tuple[str, ...]:
    if explicit is not None:
        chosen = explicit
    elif configured is not None:
        chosen = parse_tool_names(configured, "agent.json tools")
    else:
        chosen = default_tool_names(provider)
    # One fixed order, whatever order the names were given in: the tool schemas open every
    # request, and a reordered list would change the prefix providers cache.
    keep = set(chosen) - set(disallowed)
    return tuple(name for name in ALL_TOOLS if name in keep)


def build_toolset(names: Iterable[str], more: ToolSource | None = None) -> Toolset:
    """Instantiate the named tools (each class is imported when first needed); `more` lists
    its own (the MCP servers') when first asked."""
    tools: list[Tool] = []
    for name in names:
        module_name, _, attr = TOOL_CLASSES[name].partition(":")
        cls = getattr(importlib.import_module(module_name), attr)
        tools.append(cast(Tool, cls()))
    return Toolset(tuple(tools), more)
