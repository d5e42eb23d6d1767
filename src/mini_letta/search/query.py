"""Ranked lookups in the index: messages (with filters) and memory lines, by BM25.

A query runs twice at most: first every word must match (precise), then, if that found fewer
than asked, any word or CJK bigram may (recall for question-like queries); strict hits always
rank above loose ones. Scores are FTS5's bm25 negated, so higher is better.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta

from mini_letta.errors import InvalidValueError
from mini_letta.search.text import ParsedQuery, join_any
from mini_letta.structs import Struct

MAX_LIMIT = 200
COMMON_SHARE = 0.05
MIN_LOOSE = 2


class MessageFilter(Struct, frozen=True):
    conversation_id: str | None = None
    role: str | None = None
    since: str | None = None  # inclusive, sortable UTC time (see parse_time_bound)
    until: str | None = None  # exclusive
    limit: int = 10


class MessageHit(Struct, frozen=True):
    conversation_id: str
    message_id: str
    line: int
    role: str
    created_at: str
    text: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {
            "conversationId": self.conversation_id,
            "messageId": self.message_id,
            "role": self.role,
            "createdAt": self.created_at,
            "text": self.text,
            "score": round(self.score, 6),
        }


class MemoryHit(Struct, frozen=True):
    path: str
    line: int
    text: str
    score: float

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "score": round(self.score, 6),
        }


def check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidValueError(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
    return limit


def parse_time_bound(text: str, *, end: bool, what: str) -> str:
    """`YYYY-MM-DD` or an ISO 8601 time as a sortable UTC string; a date given as an end
    includes its whole day. A bad value is a usage error naming `what`."""
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
            if end:
                moment += timedelta(days=1)
        else:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    except (ValueError, OverflowError):  # an end date of 9999-12-31, or an offset past year 1
        raise InvalidValueError(
            f"{what} {text!r} is not a date (use YYYY-MM-DD or an ISO 8601 time)"
        ) from None


def find_messages(
    conn: sqlite3.Connection, query: ParsedQuery, where: MessageFilter
) -> list[MessageHit]:
    """The best `where.limit` messages, strict matches first."""
    hits = _message_tier(conn, query.all_terms, where, where.limit)
    loose = _without_common_terms(conn, query)
    if len(hits) < where.limit and loose != query.all_terms:
        seen = {hit.message_id for hit in hits}
        more = _message_tier(conn, loose, where, where.limit + len(hits))
        hits += [hit for hit in more if hit.message_id not in seen][: where.limit - len(hits)]
    return hits


def _without_common_terms(conn: sqlite3.Connection, query: ParsedQuery) -> str:
    """The loose expression without terms found in over COMMON_SHARE of the messages (我们,
    什么, the, is): their BM25 weight is next to nothing, yet OR-ing them makes FTS5 rank most
    of the index. The rarest MIN_LOOSE terms the index holds are kept whatever their frequency."""
    if len(query.loose) <= MIN_LOOSE:
        return query.any_term
    tokens = [token for token, _ in query.loose]
    marks = ", ".join("?" * len(tokens))
    frequency = dict(
        conn.execute(f"SELECT term, doc FROM messages_vocab WHERE term IN ({marks})", tokens)
    )
    total = conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0
    # a term in no message matches nothing: it must not take the place of one that does
    present = [pair for pair in query.loose if frequency.get(pair[0], 0) > 0]
    if not present:
        return query.any_term
    by_rarity = sorted(present, key=lambda pair: frequency[pair[0]])
    kept = [
        unit
        for rank, (token, unit) in enumerate(by_rarity)
        if rank < MIN_LOOSE or frequency.get(token, 0) <= total * COMMON_SHARE
    ]
    return join_any(kept)


def _message_tier(
    conn: sqlite3.Connection, match: str, where: MessageFilter, limit: int
) -> list[MessageHit]:
    columns = (
        "SELECT m.conversation_id, m.message_id, m.line, m.role, m.created_at, m.text, f.score"
    )
    clauses: list[str] = []
    params: list[object] = []
    for column, value, op in (
        ("m.conversation_id", where.conversation_id, "="),
        ("m.role", where.role, "="),
        ("m.ts", where.since, ">="),
        ("m.ts", where.until, "<"),
    ):
        if value is not None:
            clauses.append(f"{column} {op} ?")
            params.append(value)
    if clauses:  # filters: rank every match, then filter
        sql = (
            f"{columns} FROM (SELECT rowid, bm25(messages_fts) AS score FROM messages_fts "
            "WHERE messages_fts MATCH ?) f JOIN messages m ON m.id = f.rowid "
            f"WHERE {' AND '.join(clauses)} ORDER BY f.score, m.id DESC LIMIT ?"
        )
        rows = conn.execute(sql, (match, *params, limit)).fetchall()
    else:  # no filters: FTS5 keeps only the top `limit` while ranking
        sql = (
            f"{columns} FROM (SELECT rowid, rank AS score FROM messages_fts "
            "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?) f "
            "JOIN messages m ON m.id = f.rowid ORDER BY f.score, m.id DESC"
        )
        rows = conn.execute(sql, (match, limit)).fetchall()
    return [
        MessageHit(row[0], row[1], row[2], row[3], row[4], row[5], score=-row[6]) for row in rows
    ]


def find_memory(conn: sqlite3.Connection, query: ParsedQuery, limit: int) -> list[MemoryHit]:
    """The best `limit` memory lines, strict matches first."""
    hits = _memory_tier(conn, query.all_terms, limit)
    if len(hits) < limit and query.any_term != query.all_terms:
        seen = tuple((hit.path, hit.line) for hit in hits)
        hits += [
            hit
            for hit in _memory_tier(conn, query.any_term, limit + len(hits))
            if (hit.path, hit.line) not in seen
        ][: limit - len(hits)]
    return hits


def _memory_tier(conn: sqlite3.Connection, match: str, limit: int) -> list[MemoryHit]:
    rows = conn.execute(
        "SELECT m.path, m.line, m.text, bm25(memory_fts) AS score FROM memory_fts "
        "JOIN memory m ON m.id = memory_fts.rowid WHERE memory_fts MATCH ? "
        "ORDER BY score, m.path, m.line LIMIT ?",
        (match, limit),
    ).fetchall()
    return [MemoryHit(row[0], row[1], row[2], -row[3]) for row in rows]
