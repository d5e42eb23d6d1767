"""Recall: search an agent's conversations and memory — the one entry point tools and CLI use.

Each search first brings the index up to date (O(new): see indexer.py), so nothing is indexed
on a turn's hot path and an agent that never searches never pays for an index. With an
embeddings endpoint configured, the BM25 candidates are re-ranked by fusing BM25 order with
vector similarity (reciprocal rank fusion); without one, BM25 alone.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mini_letta.home import Home
from mini_letta.search.embeddings import Embedder, fuse_by_similarity
from mini_letta.search.indexer import RefreshStats, refresh_index
from mini_letta.search.query import (
    MemoryHit,
    MessageFilter,
    MessageHit,
    check_limit,
    find_memory,
    find_messages,
)
from mini_letta.search.store import with_index
from mini_letta.search.text import parse_query
from mini_letta.structs import Struct, replace

CANDIDATES = 50  # BM25 hits re-ranked when embeddings are on


class Recall(Struct, frozen=True):
    home: Home
    agent_id: str
    embedder: Embedder | None = None

    def refresh(self) -> RefreshStats:
        """Index what is new; searches do this themselves."""
        return with_index(self._path, lambda conn: refresh_index(conn, self.home, self.agent_id))

    def search_messages(self, query: str, where: MessageFilter) -> list[MessageHit]:
        """Messages (user and assistant) matching `query`, best first."""
        check_limit(where.limit)
        parsed = parse_query(query)
        if parsed is None:
            return []

        def run(conn: sqlite3.Connection) -> list[MessageHit]:
            refresh_index(conn, self.home, self.agent_id)
            if self.embedder is None:
                return find_messages(conn, parsed, where)
            wide = find_messages(conn, parsed, replace(where, limit=max(CANDIDATES, where.limit)))
            fused = fuse_by_similarity(conn, self.embedder, query, wide, lambda hit: hit.text)
            return [replace(hit, score=score) for hit, score in fused[: where.limit]]

        return with_index(self._path, run)

    def search_memory(self, query: str, limit: int = 10) -> list[MemoryHit]:
        """Lines of the memory files (at HEAD) matching `query`, best first."""
        check_limit(limit)
        parsed = parse_query(query)
        if parsed is None:
            return []

        def run(conn: sqlite3.Connection) -> list[MemoryHit]:
            refresh_index(conn, self.home, self.agent_id)
            if self.embedder is None:
                return find_memory(conn, parsed, limit)
            wide = find_memory(conn, parsed, max(CANDIDATES, limit))
            fused = fuse_by_similarity(conn, self.embedder, query, wide, lambda hit: hit.text)
            return [replace(hit, score=score) for hit, score in fused[:limit]]

        return with_index(self._path, run)

    @property
    def _path(self) -> Path:
        return self.home.search_index_file(self.agent_id)
