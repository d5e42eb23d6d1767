"""The `Skill` tool: a skill's instructions, loaded when the model decides it needs them.

The system prompt lists only names and descriptions; this tool returns one skill's body (read
from disk now, so an edit since the session began is seen), its folder and the files it
bundles. Those are read with Read (`tools/paths.py` lets the file tools read inside the
session's skill folders and nowhere else outside the project and memory) and its scripts run
through Bash, so the permission mode decides as for any command. A skill's `allowed-tools` is
shown but grants nothing: pre-approval would let a downloaded skill widen what the user chose.
"""

from __future__ import annotations

from typing import Any

from mini_letta.llm.base import ToolSpec
from mini_letta.tools.base import ToolContext, ToolInputError, ToolKind, ToolResult


class SkillTool:
    spec = ToolSpec(
        name="Skill",
        description=(
            "Load a skill's instructions by name (skills are listed in the system prompt). "
            "Without a name, list every skill. Read the files it bundles with Read."
        ),
        parameters={"type": "object", "properties": {"name": {"type": "string"}}},
    )
    kind: ToolKind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from mini_letta.skills.discover import Catalog
        from mini_letta.skills.load import list_skills_text, load_skill_text

        catalog = ctx.skills or Catalog()
        name = args.get("name")
        if name is not None and not isinstance(name, str):
            raise ToolInputError("'name' must be a skill's name")
        if not name or not name.strip():
            return ToolResult(list_skills_text(catalog))
        return ToolResult(load_skill_text(catalog, name.strip().lstrip("/"), ctx.cwd))
