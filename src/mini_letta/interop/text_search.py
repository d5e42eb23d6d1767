"""A plain text search of memory files, for the MCP server: lines holding every query word.

Linear in the size of memory: each line is lowered once and checked with `in`, no patterns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class TextHit:
    path: str
    line: int  # 1-based, in the whole file
    text: str


def search_memory_text(memory_dir: Path, query: str, limit: int) -> list[TextHit]:
    from mini_letta.memory.edits import list_memory_tree, read_memory_file

    words = [word for word in query.lower().split() if word]
    if not words:
        return []
    hits: list[TextHit] = []
    for path, _ in list_memory_tree(memory_dir):
        for number, line in enumerate(read_memory_file(memory_dir, path).splitlines(), 1):
            lowered = line.lower()
            if all(word in lowered for word in words):
                hits.append(TextHit(path, number, line.strip()))
                if len(hits) >= limit:
                    return hits
    return hits
