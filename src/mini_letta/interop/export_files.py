"""`memory export --format agents-md`: an AGENTS.md other coding tools read, from memory.

System files come first, in full (they are what the agent always knows), then every other
memory file with its description and body; skills are listed by description only, and the
agent's persona is left out (it describes mini-letta's agent, not instructions for another
tool). What the person told the agent about themselves (system/human.md) leaves only when
asked: an AGENTS.md is usually committed and shared.

The export is one marked block (`BLOCK_BEGIN` … `BLOCK_END`), so the file can hold the user's
own instructions too: exporting again replaces only the block, and `memory import` skips it,
so a round trip never nests the export in itself. A file without the block is the user's own
and is replaced whole only when forced.
"""

from __future__ import annotations

from pathlib import Path

from mini_letta.errors import MemfsError
from mini_letta.memory.edits import list_memory_tree, read_memory_file
from mini_letta.memory.frontmatter import parse_memory_file
from mini_letta.memory.layout import HUMAN_FILE, PERSONA_FILE
from mini_letta.structs import Struct

FORMATS = ("agents-md",)
PERSONA = PERSONA_FILE
BLOCK_BEGIN = "<!-- mini-letta:begin"
BLOCK_END = "<!-- mini-letta:end -->"
TITLE = "# AGENTS.md"


def render_agents_md(
    memory_dir: Path, agent_name: str, head: str | None, *, personal: bool = False
) -> str:
    """A whole new AGENTS.md: a title, then the marked block (see the module doc)."""
    return f"{TITLE}\n\n" + render_block(memory_dir, agent_name, head, personal=personal)


def render_block(
    memory_dir: Path, agent_name: str, head: str | None, *, personal: bool = False
) -> str:
    """The marked block alone, from its begin line to its end line (and a newline)."""
    entries = list_memory_tree(memory_dir)
    at = f" at {head[:7]}" if head else ""
    parts = [
        f"{BLOCK_BEGIN} generated from the memory of agent {agent_name}{at}; "
        "`mini-letta memory export` replaces this block, and `memory import` skips it. "
        "Change the memory (`mini-letta memory edit`), not this copy. -->\n",
    ]
    left_out = {PERSONA} | (set() if personal else {HUMAN_FILE})
    system = [(p, d) for p, d in entries if p.startswith("system/") and p not in left_out]
    skills = [(p, d) for p, d in entries if p.startswith("skills/")]
    rest = [(p, d) for p, d in entries if not p.startswith(("system/", "skills/"))]
    for path, description in [*system, *rest]:
        body = parse_memory_file(read_memory_file(memory_dir, path), path).body.strip()
        parts.append(f"\n## {description}\n\n<!-- {path} -->\n\n{body}\n")
    if skills:
        parts.append("\n## Skills\n\n")
        parts += [f"- `{path}`: {description}\n" for path, description in skills]
    parts.append(f"\n{BLOCK_END}\n")
    return "".join(parts)


class BlockSpan(Struct, frozen=True):
    """Where the export's block sits in a file: character offsets, end past its last line."""

    start: int
    end: int


def find_block(text: str) -> BlockSpan | None:
    """The one export block in `text`, or None when there is none. Markers that do not pair
    up (a begin without its end, two blocks) are a MemfsError: replacing or skipping a
    guess could lose the user's lines."""
    begins = _marker_lines(text, BLOCK_BEGIN)
    ends = _marker_lines(text, BLOCK_END)
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise MemfsError(
            f"its mini-letta block markers do not pair up ({len(begins)} begin, {len(ends)} "
            "end); fix them by hand"
        )
    end = text.find("\n", ends[0])
    return BlockSpan(begins[0], len(text) if end < 0 else end + 1)


def _marker_lines(text: str, marker: str) -> list[int]:
    """Offsets of the lines that start with `marker` (one linear scan)."""
    found: list[int] = []
    at = 0
    for line in text.splitlines(keepends=True):
        if line.startswith(marker):
            found.append(at)
        at += len(line)
    return found


def without_block(text: str, name: str) -> str:
    """`text` with the export's block taken out, and nothing left when only the title the
    export writes remains: what `memory import` reads of an exported AGENTS.md."""
    try:
        span = find_block(text)
    except MemfsError as exc:
        raise MemfsError(f"{name}: {exc}; nothing was imported") from None
    if span is None:
        return text
    rest = text[: span.start] + text[span.end :]
    if not rest.strip() or rest.strip() == TITLE:
        return ""
    return rest


def merge_into(current: str | None, block: str, *, force: bool, name: str) -> str:
    """The file's new text: the block replaced in place in `current`, or a new file. A file
    without the block is the user's own: replaced whole only with `force`."""
    if current is None:
        return f"{TITLE}\n\n{block}"
    try:
        span = find_block(current)
    except MemfsError as exc:
        if force:
            return f"{TITLE}\n\n{block}"
        raise MemfsError(f"{name}: {exc}, or give --force to replace the whole file") from None
    if span is not None:
        return current[: span.start] + block + current[span.end :]
    if force:
        return f"{TITLE}\n\n{block}"
    raise MemfsError(
        f"{name} exists and holds no mini-letta block, so it is not overwritten: give --force "
        f"to replace it whole, or put the lines `{BLOCK_BEGIN} -->` and `{BLOCK_END}` where "
        "the export should go"
    )
