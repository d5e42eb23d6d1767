"""Bring the index up to date with the logs and the memory repository, in O(new).

Per conversation the index remembers the log's identity (device, inode, size), how many lines
it has read and the id of the last one. An unchanged log costs one `stat`; a grown one is read
from the remembered line through the log's offset index (`iter_from`), never from the start;
a log that shrank, was replaced or whose remembered last line no longer matches is re-read
whole. Memory is indexed at its HEAD commit: a new HEAD re-reads only the files
`git diff --name-only` names. Everything happens in one write transaction, so two processes
refreshing at once take turns and the second finds nothing left to do.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime

from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import GitError
from mini_letta.home import Home
from mini_letta.memory.repo import GitRepo
from mini_letta.search.text import build_index_text
from mini_letta.structs import Struct

INDEXED_ROLES = ("user", "assistant")
_FULL_MEMORY_REINDEX = 20  # changed files past which one `git cat-file --batch` is cheaper


class RefreshStats(Struct):
    messages_added: int = 0
    conversations_reset: int = 0
    memory_lines: int = 0


def refresh_index(conn: sqlite3.Connection, home: Home, agent_id: str) -> RefreshStats:
    """Index what was written since the last refresh (messages and memory).

    A first look without the write lock decides whether anything changed (one `stat` per
    conversation, one read of the memory HEAD); only then is the write transaction taken, and
    the look repeated inside it, since another process may have done the work meanwhile."""
    stats = RefreshStats()
    if not _has_changes(conn, home, agent_id):
        return stats
    conn.execute("BEGIN IMMEDIATE")
    try:
        _refresh_conversations(conn, home, agent_id, stats)
        _refresh_memory(conn, home, agent_id, stats)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return stats


def _has_changes(conn: sqlite3.Connection, home: Home, agent_id: str) -> bool:
    known = _known_sources(conn)
    present = _conversation_logs(home, agent_id)
    if set(known) != set(present):
        return True
    for conversation_id, log in present.items():
        source = known[conversation_id]
        try:
            st = os.stat(log)
        except FileNotFoundError:
            if source.lines:
                return True
            continue
        if not _same_file(source, st):
            return True
    return _memory_head(home, agent_id) != _indexed_head(conn)


# -- conversations ----------------------------------------------------------------------------
class _Source(Struct, frozen=True):
    dev: int
    ino: int
    size: int
    lines: int
    last_message_id: str | None


def _refresh_conversations(
    conn: sqlite3.Connection, home: Home, agent_id: str, stats: RefreshStats
) -> None:
    known = _known_sources(conn)
    present = _conversation_logs(home, agent_id)
    for conversation_id in set(known) - set(present):
        _forget_conversation(conn, conversation_id)
    for conversation_id in sorted(present):
        source = known.get(conversation_id)
        try:
            st = os.stat(present[conversation_id])
        except FileNotFoundError:
            if source is not None and source.lines:
                _forget_conversation(conn, conversation_id)
                stats.conversations_reset += 1
            continue
        if source is not None and _same_file(source, st):
            continue  # the fast path: one stat per conversation
        store = ConversationStore(agent_id, conversation_id, home)
        _refresh_one(conn, store, source, st, stats)


def _known_sources(conn: sqlite3.Connection) -> dict[str, _Source]:
    rows = conn.execute(
        "SELECT conversation_id, file_dev, file_ino, file_size, lines, last_message_id FROM sources"
    )
    return {row[0]: _Source(*row[1:]) for row in rows}


def _conversation_logs(home: Home, agent_id: str) -> dict[str, str]:
    """conversation id -> path of its log, for every conversation folder (one whose log does
    not exist yet has nothing to index; the stat that follows finds that out)."""
    root = home.conversations_dir(agent_id)
    log_name = home.conversation_files(agent_id, "any").messages.name  # one Path, not one each
    try:
        with os.scandir(root) as entries:
            return {
                entry.name: os.path.join(entry.path, log_name)
                for entry in entries
                if entry.is_dir()
            }
    except FileNotFoundError:
        return {}


def _same_file(source: _Source, st: os.stat_result) -> bool:
    return (source.dev, source.ino, source.size) == (st.st_dev, st.st_ino, st.st_size)


def _refresh_one(
    conn: sqlite3.Connection,
    store: ConversationStore,
    known: _Source | None,
    st: os.stat_result,
    stats: RefreshStats,
) -> None:
    """Read the log from where the index stopped (or from the start if it is not the same)."""
    end = store.count()
    start = known.lines if known is not None and _continues(store, known, st, end) else 0
    if known is not None and start == 0 and known.lines:
        _forget_conversation(conn, store.conversation_id)
        stats.conversations_reset += 1
    last_id = known.last_message_id if known is not None and start else None
    rows: list[tuple[str, int, str, str, str, str, str]] = []
    for line, message in store.iter_from(start):
        if line >= end:
            break
        last_id = message.id if line == end - 1 else last_id
        if message.role in INDEXED_ROLES and message.content.strip():
            rows.append(_message_row(store.conversation_id, line, message))
    _insert_messages(conn, rows)
    stats.messages_added += len(rows)
    conn.execute(
        "INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?, ?, ?)",
        (store.conversation_id, st.st_dev, st.st_ino, st.st_size, end, last_id),
    )


def _continues(store: ConversationStore, known: _Source, st: os.stat_result, end: int) -> bool:
    """Is the log the one indexed, grown by appends? (Same file, no fewer lines, same last.)"""
    if (known.dev, known.ino) != (st.st_dev, st.st_ino) or end < known.lines:
        return False
    if known.lines == 0 or known.last_message_id is None:
        return True
    message = store.at_line(known.lines - 1)
    return message is not None and message.id == known.last_message_id


def _message_row(
    conversation_id: str, line: int, message: Message
) -> tuple[str, int, str, str, str, str, str]:
    return (
        conversation_id,
        line,
        message.id,
        message.role,
        message.created_at,
        sortable_time(message.created_at),
        message.content,
    )


def _insert_messages(
    conn: sqlite3.Connection, rows: list[tuple[str, int, str, str, str, str, str]]
) -> None:
    """Two `executemany`s with ids assigned here (the write lock is held), not a row at a time."""
    if not rows:
        return
    first = (conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0) + 1
    conn.executemany(
        "INSERT INTO messages (id, conversation_id, line, message_id, role, created_at, ts, text)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(first + i, *row) for i, row in enumerate(rows)],
    )
    conn.executemany(
        "INSERT INTO messages_fts (rowid, body) VALUES (?, ?)",
        [(first + i, build_index_text(row[6])) for i, row in enumerate(rows)],
    )


def _forget_conversation(conn: sqlite3.Connection, conversation_id: str) -> None:
    rows = conn.execute(
        "SELECT id, text FROM messages WHERE conversation_id = ?", (conversation_id,)
    ).fetchall()
    _delete_fts(conn, "messages_fts", rows)
    conn.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
    conn.execute("DELETE FROM sources WHERE conversation_id = ?", (conversation_id,))


def _delete_fts(conn: sqlite3.Connection, table: str, rows: Iterable[tuple[int, str]]) -> None:
    """A contentless FTS5 table forgets a row when given the text it indexed for it."""
    conn.executemany(
        f"INSERT INTO {table} ({table}, rowid, body) VALUES ('delete', ?, ?)",
        [(rowid, build_index_text(text)) for rowid, text in rows],
    )


def sortable_time(created_at: str) -> str:
    """createdAt in UTC as `YYYY-MM-DDTHH:MM:SS`, so filters compare strings; kept as is when
    it does not parse (an imported transcript may carry anything)."""
    try:
        moment = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return created_at
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


# -- memory -----------------------------------------------------------------------------------


def _refresh_memory(
    conn: sqlite3.Connection, home: Home, agent_id: str, stats: RefreshStats
) -> None:
    repo = GitRepo(home.memory_dir(agent_id))
    head, indexed = _memory_head(home, agent_id), _indexed_head(conn)
    if head == indexed:
        return
    changed = _changed_files(repo, indexed, head) if indexed and head else None
    if changed is None or len(changed) > _FULL_MEMORY_REINDEX:
        _forget_memory(conn, None)
        blobs = repo.read_blobs(head) if head else {}
        files = {path: data.decode("utf-8", "replace") for path, data in blobs.items()}
    else:
        _forget_memory(conn, changed)
        files = {}
        for path in changed:
            text = repo.show_file(head, path) if head else None
            if text is not None:
                files[path] = text
    for path, text in sorted(files.items()):
        if path.endswith(".md"):
            stats.memory_lines += _insert_memory_file(conn, path, text)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('memory_head', ?)", (head or "",))


def _memory_head(home: Home, agent_id: str) -> str | None:
    repo = GitRepo(home.memory_dir(agent_id))
    return repo.head_sha_or_none() if repo.exists() else None


def _indexed_head(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'memory_head'").fetchone()
    return (row[0] or None) if row else None


def _changed_files(repo: GitRepo, old: str, new: str) -> list[str] | None:
    """Paths that differ between two commits; None when the old one is gone (reindex all)."""
    try:
        output = repo.run("diff", "--name-only", "-z", "--no-renames", old, new)
    except GitError:
        return None
    return [path for path in output.split("\0") if path]


def _forget_memory(conn: sqlite3.Connection, paths: list[str] | None) -> None:
    if paths is None:
        conn.execute("DELETE FROM memory")
        conn.execute("INSERT INTO memory_fts (memory_fts) VALUES ('delete-all')")
        return
    for path in paths:
        rows = conn.execute("SELECT id, text FROM memory WHERE path = ?", (path,)).fetchall()
        _delete_fts(conn, "memory_fts", rows)
        conn.execute("DELETE FROM memory WHERE path = ?", (path,))


def _insert_memory_file(conn: sqlite3.Connection, path: str, text: str) -> int:
    """One row per line that has words in it; `line` is 1-based, as an editor shows it."""
    count = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not any(ch.isalnum() for ch in line):
            continue
        cursor = conn.execute(
            "INSERT INTO memory (path, line, text) VALUES (?, ?, ?)", (path, number, line)
        )
        conn.execute(
            "INSERT INTO memory_fts (rowid, body) VALUES (?, ?)",
            (cursor.lastrowid, build_index_text(line)),
        )
        count += 1
    return count
