"""The skills part of the system prompt: names and descriptions only, under a token cap.

Progressive disclosure: the prompt carries one line per skill; the Skill tool loads a body when
the model decides it needs it; the files a body mentions are read only after that. The memory
skills are listed as they are at the conversation's pinned memory commit (their frontmatter
comes with the compiled memory, so the prompt stays byte-identical while memory moves on); the
project and user skills as discovered when the session started. The list stops before the
cap with "…and N more", and the Skill tool called without a name lists them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from mini_letta.llm.tokens import estimate_tokens
from mini_letta.skills.format import Skill, parse_skill
from mini_letta.structs import Struct

SKILLS_PROMPT_TOKENS = 2_000  # the whole block, header and "and N more" line included
MAX_LISTED_DESCRIPTION = 300  # characters of a description shown in the list
HEADER = (
    "Skills are instructions for specific tasks, loaded on demand. When one fits the task, "
    "call the Skill tool with its name before starting; read the files it lists with Read "
    "and run its scripts with Bash."
)


class Listing(Struct, frozen=True):
    name: str
    description: str
    source: str


def memory_listings(texts: Sequence[tuple[str, str]], everything: bool = False) -> list[Listing]:
    """The valid memory skills among (path, frontmatter text) pairs; invalid ones are left out
    (discovery warns about them), and so are those the model may not invoke unless
    `everything`."""
    found: list[Listing] = []
    for path, text in texts:
        parts = PurePosixPath(path).parts
        if len(parts) != 3:
            continue
        skill, problems = parse_skill(text, parts[1])
        if skill is not None and not problems and (everything or skill.model_invocable):
            found.append(Listing(skill.name, skill.description, "memory"))
    return found


def render_skills_block(
    memory: Sequence[Listing], external: Sequence[Skill], cap: int = SKILLS_PROMPT_TOKENS
) -> str:
    """`<available_skills>` with memory skills first (they win a name clash), then the rest in
    discovery order; empty when there is no skill at all."""
    names = {listing.name for listing in memory}
    listings = list(memory) + [
        Listing(skill.name, skill.description, skill.source)
        for skill in external
        if skill.name not in names and skill.file.model_invocable
    ]
    if not listings:
        return ""
    lines: list[str] = []
    used = estimate_tokens(HEADER) + 20  # the tags and the "and N more" line
    for index, listing in enumerate(listings):
        description = listing.description
        if len(description) > MAX_LISTED_DESCRIPTION:
            description = description[: MAX_LISTED_DESCRIPTION - 1].rstrip() + "…"
        line = f"- {listing.name} ({listing.source}): {description}"
        cost = estimate_tokens(line) + 1
        if used + cost > cap:
            rest = len(listings) - index
            lines.append(f"- …and {rest} more (call Skill without a name to list every skill)")
            break
        lines.append(line)
        used += cost
    return "<available_skills>\n" + HEADER + "\n" + "\n".join(lines) + "\n</available_skills>"


def render_memory_skill_list(texts: Sequence[tuple[str, str]]) -> str:
    """The skills memory holds, for the reflection agent (which revises them with the memory
    tools rather than loading them): name, description and path, none left out."""
    lines = [
        f"- {listing.name}: {listing.description} (skills/{listing.name}/SKILL.md)"
        for listing in memory_listings(texts, everything=True)
    ]
    return "<memory_skills>\n" + "\n".join(lines) + "\n</memory_skills>" if lines else ""


class SkillsPrompt:
    """The block for one session: its project and user skills, plus memory's at a commit."""

    def __init__(self, external: Sequence[Skill], cap: int = SKILLS_PROMPT_TOKENS) -> None:
        self.external = tuple(skill for skill in external if skill.source != "memory")
        self.cap = cap
        self._cache: tuple[tuple[tuple[str, str], ...], str] | None = None

    def block(self, memory_texts: Sequence[tuple[str, str]]) -> str:
        key = tuple(memory_texts)
        if self._cache is None or self._cache[0] != key:
            text = render_skills_block(memory_listings(key), self.external, self.cap)
            self._cache = (key, text)
        return self._cache[1]
