"""The starter memory every agent gets: where the person and the agent are described.

This is public contract, not an implementation detail: the system prompt tells models about
`system/human.md` and `system/persona.md`, and the shipped mock model edits them like any model
would. `init_memory_repo` writes these files; nothing else should spell their names.
"""

from __future__ import annotations

from mini_letta.home import SKILLS_DIR_NAME

PERSONA_FILE = "system/persona.md"


def skill_of_bundled_file(rel: str) -> str | None:
    """The skill a file under `skills/<name>/` belongs to, SKILL.md itself excepted: a skill's
    references and scripts are its own files, not memory notes with a frontmatter."""
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] == SKILLS_DIR_NAME and parts[2:] != ["SKILL.md"]:
        return parts[1]
    return None


HUMAN_FILE = "system/human.md"

DEFAULT_PERSONA_DESCRIPTION = "Who I am and how I work; I revise it as I learn."
DEFAULT_PERSONA = "I am a mini-letta agent, a long-lived assistant for one person.\n"
DEFAULT_HUMAN_DESCRIPTION = "What I know about the person I work with."
DEFAULT_HUMAN = "Nothing yet; I have not got to know this person.\n"
