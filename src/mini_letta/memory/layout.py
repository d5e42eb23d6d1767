"""The starter memory every agent gets: where the person and the agent are described.

This is public contract, not an implementation detail: the system prompt tells models about
`system/human.md` and `system/persona.md`, and the shipped mock model edits them like any model
would. `init_memory_repo` writes these files; nothing else should spell their names.
"""

from __future__ import annotations

PERSONA_FILE = "system/persona.md"
HUMAN_FILE = "system/human.md"

DEFAULT_PERSONA_DESCRIPTION = "Who I am and how I work; I revise it as I learn."
DEFAULT_PERSONA = "I am a mini-letta agent, a long-lived assistant for one person.\n"
DEFAULT_HUMAN_DESCRIPTION = "What I know about the person I work with."
DEFAULT_HUMAN = "Nothing yet; I have not got to know this person.\n"
