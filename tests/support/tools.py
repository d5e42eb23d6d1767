"""Helpers for tool tests: a ToolContext over real folders, and running a call by name."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mini_letta.conversations.messages import ToolCall
from mini_letta.tools.base import ToolContext, ToolResult, Toolset, execute_tool_call
from mini_letta.tools.registry import build_toolset

CODING_TOOLS = ("Read", "Write", "Edit", "Bash", "Grep", "Glob")


def make_context(cwd: Path, clock: Any, **fields: Any) -> ToolContext:
    fields.setdefault("permission_mode", "bypassPermissions")
    fields.setdefault("environ", dict(os.environ))  # what a CLI run would pass (PATH for Bash)
    return ToolContext(cwd=cwd, clock=clock, **fields)


def call_tool(
    name: str, args: dict[str, Any] | str, ctx: ToolContext, toolset: Toolset | None = None
) -> ToolResult:
    raw = args if isinstance(args, str) else json.dumps(args)
    return execute_tool_call(
        ToolCall("call-1", name, raw), toolset or build_toolset(CODING_TOOLS), ctx
    )
