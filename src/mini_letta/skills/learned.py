"""A skill written by reflection says so: its `name` (the folder's) and, in `metadata`, that
reflection learned it and in which run. The reflection agent writes memory files through the
memory layer, whose frontmatter knows only `description`; this fills in the rest."""

from __future__ import annotations

import re
from pathlib import Path

from mini_letta.memory.frontmatter import parse_memory_file, render_memory_file
from mini_letta.skills.validate import learned_metadata
from mini_letta.structs import replace

_SKILL_PATH = re.compile(r"skills/([^/]+)/SKILL\.md")


def is_skill_path(rel: str) -> bool:
    return _SKILL_PATH.fullmatch(rel) is not None


def stamp_learned_skill(root: Path, rel: str, run_id: str) -> bool:
    """Add the name and the run's metadata to the skill at `rel`; False when there is nothing
    to stamp (not a skill, gone, or its frontmatter unreadable: the gate then says why)."""
    match = _SKILL_PATH.fullmatch(rel)
    if match is None:
        return False
    from mini_letta.errors import FrontmatterError
    from mini_letta.memory.files import read_memory_text

    try:  # a plain file only: a link planted there is neither read nor written through
        text = read_memory_text(root, rel)
        parsed = parse_memory_file(text, rel)
    except (OSError, FrontmatterError):
        return False
    extra = dict(parsed.extra)
    extra.setdefault("name", match.group(1))
    metadata = extra.get("metadata")
    extra["metadata"] = {
        **(metadata if isinstance(metadata, dict) else {}),
        **learned_metadata(run_id),
    }
    stamped = render_memory_file(replace(parsed, extra=extra))
    if stamped != text:  # replaced whole: a link put there since the read is replaced, not followed
        from mini_letta.storage.atomic import save_bytes

        save_bytes(root / rel, stamped.encode("utf-8"))
    return True
