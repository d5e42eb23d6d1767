"""The index file: open it, check it, and throw it away when it cannot be trusted.

`agents/<id>/search-index.sqlite` is derived from messages.jsonl and the memory repository and
never the source of truth, so anything wrong with it — missing, not a database, malformed, an
older `schema_version` — is answered by deleting it and starting over. When it cannot be deleted
or opened (a read-only folder, something else in its place), search still works, on an index
built in memory for this process, with one warning that says what to remove. The FTS5 tables are
contentless: the original text lives once, in the plain tables beside them.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mini_letta import log
from mini_letta.errors import StorageError

SCHEMA_VERSION = 1
BUSY_TIMEOUT = 10.0
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_CANTOPEN = 14  # SQLITE_CANTOPEN: a folder or an unreadable file in the index's place
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    conversation_id TEXT PRIMARY KEY, file_dev INTEGER, file_ino INTEGER, file_size INTEGER,
    lines INTEGER NOT NULL, last_message_id TEXT);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY, conversation_id TEXT NOT NULL, line INTEGER NOT NULL,
    message_id TEXT NOT NULL, role TEXT NOT NULL, created_at TEXT NOT NULL, ts TEXT NOT NULL,
    text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages (conversation_id);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5 (
    body, content='', tokenize='porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS messages_vocab USING fts5vocab (messages_fts, 'row');
CREATE TABLE IF NOT EXISTS memory (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, line INTEGER NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS memory_by_path ON memory (path);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5 (
    body, content='', tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash));
"""


def is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Damage (rebuild) as opposed to a busy or locked database (report)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _CORRUPT_CODES
    return type(exc) is sqlite3.DatabaseError


def open_index(path: Path) -> sqlite3.Connection:
    """A connection to a usable index at the current schema, rebuilt empty when it was not."""
    for _ in range(2):
        try:
            conn = _connect(path)
        except StorageError as exc:
            return _in_memory(path, str(exc.__cause__ or exc))
        try:
            # No fsync: the index is derived, so after a power cut the worst case is a damaged
            # file, which is detected and rebuilt from the logs; a process crash is safe in WAL
            # mode anyway. Syncing would make every search that indexed something pay ~10 ms.
            conn.execute("PRAGMA synchronous = OFF")
            if _schema_version(conn) == str(SCHEMA_VERSION):
                return conn
            _create(conn)
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF == _CANTOPEN:
                return _in_memory(path, str(exc))
            if not is_corrupt(exc) and not isinstance(exc, _OutdatedError):
                raise StorageError(f"cannot use the search index {path} ({exc})") from exc
            log.warning("rebuilding the search index %s (%s)", path.name, exc)
            try:
                remove_index(path)
            except OSError as stuck:
                return _in_memory(path, f"{exc}; it cannot be removed: {stuck.strerror}")
    raise StorageError(f"cannot rebuild the search index {path}; remove it by hand")


def _in_memory(path: Path, why: str) -> sqlite3.Connection:
    """An empty index in memory, for this process: search is slower (everything is indexed
    again) but works."""
    log.warning(
        "the search index %s cannot be used (%s); searching with an index in memory until it "
        "is removed by hand",
        path,
        why,
    )
    conn = sqlite3.connect(":memory:", isolation_level=None)
    _create(conn)
    return conn


def with_index(path: Path, action: Callable[[sqlite3.Connection], T]) -> T:
    """Run `action` on the index; if the file turns out damaged midway, rebuild and run again."""
    for attempt in range(2):
        conn = open_index(path)
        try:
            return action(conn)
        except sqlite3.DatabaseError as exc:
            if attempt or not is_corrupt(exc):
                raise StorageError(f"search index {path}: {exc}") from exc
            log.warning("rebuilding the damaged search index %s (%s)", path.name, exc)
            conn.close()
            with contextlib.suppress(OSError):  # if it stays, open_index falls back to memory
                remove_index(path)
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
    raise AssertionError("unreachable")


def remove_index(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()


class _OutdatedError(sqlite3.DatabaseError):
    """The file is a database of another schema version: start over."""


def _connect(path: Path) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StorageError(f"cannot open the search index {path} ({exc})") from exc
    return conn


def _schema_version(conn: sqlite3.Connection) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return None
        raise
    if row is None:
        return None
    if row[0] != str(SCHEMA_VERSION):
        raise _OutdatedError(f"schema version {row[0]}, expected {SCHEMA_VERSION}")
    return str(row[0])


def _create(conn: sqlite3.Connection) -> None:
    _use_wal(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _schema_version(conn) is None:  # another process may have won the race
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch a new file to WAL, waiting for the other openers of the same new file.

    The switch needs the file to itself and SQLite answers `database is locked` at once rather
    than consult the busy timeout, so two processes (or threads) opening a fresh index together
    would otherwise fail; here they take turns, within the same timeout as any other wait.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    pause = 0.001
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorcode", 0) & 0xFF in _BUSY_CODES
            if not busy or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
