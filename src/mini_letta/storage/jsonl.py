"""Append-only JSONL logs with a sidecar offset index, safe across processes and crashes.

Owns `<log>`, `<log>.idx` (little-endian uint64 start offset of each physical line) and
`<log>.lock`. Invariants: a record exists once its `\\n`-terminated line is fsynced; bytes after
the last `\\n` were never acknowledged and the next append cuts them; lines never change once
written; the index is a cache that may lag, be missing or be wrong, so it is checked before use
and rewritten only under the lock; readers never lock, never wait and never write the log.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from io import FileIO
from pathlib import Path
from typing import Any

from mini_letta.errors import LockTimeoutError, StorageError, UnwritableError
from mini_letta.storage.atomic import fsync_directory, write_all
from mini_letta.storage.locks import exclusive_lock

_log = logging.getLogger("mini_letta")

_ENTRY = 8  # bytes per index entry
_CHUNK = 1 << 16
_BLOCK = 256  # index entries fetched at once when walking backwards
_NL = 0x0A
_BINARY = getattr(os, "O_BINARY", 0)  # Windows would otherwise translate newlines


@dataclass(frozen=True)
class _View:
    """What an instance knows about one version of the log; replaced, never mutated.

    Lines `[0, indexed)` have checked offsets in the index file; `tail` holds the start offsets
    of the later complete lines, known only in memory; `end` is the byte after the last one.
    `index_ok` is False when the index file must be rewritten rather than extended; `trusted`
    is False when the index was found wrong in the middle and only a full scan can be believed.
    """

    file_id: tuple[int, int] | None
    indexed: int = 0
    tail: tuple[int, ...] = ()
    end: int = 0
    index_ok: bool = True
    trusted: bool = True
    index_seen: int = -1

    @property
    def count(self) -> int:
        return self.indexed + len(self.tail)


class _StaleIndexError(Exception):
    """An index entry disagrees with the log; raised internally, answered by a full scan."""


class JsonlLog:
    """One JSONL file. Instances are cheap; each re-checks the file size on every call."""

    def __init__(self, path: Path, *, lock_timeout: float = 30.0) -> None:
        self.path = path
        self.index_path = path.with_suffix(path.suffix + ".idx")
        self.lock_path = path.with_suffix(path.suffix + ".lock")
        self._lock_timeout = lock_timeout
        self._view = _View(file_id=None)
        self._warned: set[tuple[tuple[int, int] | None, int]] = set()

    # ----- writing -------------------------------------------------------------------------

    def append(self, records: Sequence[Mapping[str, Any]]) -> list[int]:
        """Durably add `records` as new lines and return their 0-based line indices."""
        lines = [
            (json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
            for r in records
        ]
        if not lines:
            return []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UnwritableError(self.path, exc.strerror or str(exc)) from exc
        with exclusive_lock(self.lock_path, timeout=self._lock_timeout, what=self.path.name):
            try:
                return self._append_locked(lines)
            except OSError as exc:
                raise UnwritableError(self.path, exc.strerror or str(exc)) from exc

    def _append_locked(self, lines: list[bytes]) -> list[int]:
        created = not self.path.exists()
        with open(self.path, "a+b", buffering=0) as f:
            view = self._load(f)
            size = os.fstat(f.fileno()).st_size
            if size > view.end:
                _log.warning(
                    "%s: cutting %d bytes of an unfinished record left by a crash",
                    self.path,
                    size - view.end,
                )
                f.truncate(view.end)
            offsets = []
            position = view.end
            for line in lines:
                offsets.append(position)
                position += len(line)
            write_all(f.fileno(), b"".join(lines))
            os.fsync(f.fileno())
        if created:
            fsync_directory(self.path.parent)
        first = view.count
        grown = replace(view, tail=view.tail + tuple(offsets), end=position)
        self._view = self._save_index(grown)
        return list(range(first, first + len(lines)))

    def _save_index(self, view: _View) -> _View:
        """Bring the index file up to `view` (lock held); on failure keep the offsets in memory.

        The index is not fsynced: the log's fsync is the acknowledgement, and an index that lost
        its last writes in a power cut is caught by the checks in `_load` and extended or rebuilt.
        """
        try:
            if not view.index_ok:
                head = self._read_entries(0, view.indexed) if view.indexed else []
                if head is None:
                    return view
                self._replace_index([*head, *view.tail])
            elif view.tail:
                fd = os.open(self.index_path, os.O_WRONLY | os.O_CREAT | _BINARY, 0o666)
                try:
                    os.ftruncate(fd, view.indexed * _ENTRY)  # drops a torn trailing entry
                    os.lseek(fd, view.indexed * _ENTRY, os.SEEK_SET)
                    write_all(fd, _pack(view.tail))
                finally:
                    os.close(fd)
        except OSError as exc:
            _log.warning("could not update %s (%s); it will be rebuilt", self.index_path, exc)
            return view
        return replace(
            view,
            indexed=view.count,
            tail=(),
            index_ok=True,
            trusted=True,
            index_seen=view.count * _ENTRY,
        )

    def _replace_index(self, offsets: list[int]) -> None:
        """Rewrite the index by rename, so lock-free readers see the old or the new file whole."""
        temp = self.index_path.with_name(
            f".{self.index_path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        )
        try:
            with open(temp, "wb", buffering=0) as f:
                write_all(f.fileno(), _pack(offsets))
            os.replace(temp, self.index_path)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise

    def _try_repair(self, *, trust_index: bool) -> _View | None:
        """Persist a lagging or wrong index for later readers, only if the lock is free now."""
        try:
            with exclusive_lock(self.lock_path, timeout=0, what=self.path.name):
                f = self._open_for_reading()
                if f is None:
                    return None
                with f:
                    view = self._save_index(self._load(f, trust_index=trust_index))
        except LockTimeoutError:
            return None
        except (StorageError, OSError) as exc:
            _log.debug("left %s unrepaired: %s", self.index_path, exc)
            return None
        self._view = view
        return view

    # ----- reading -------------------------------------------------------------------------

    def count(self) -> int:
        """Number of complete lines (valid or not)."""
        f = self._open_for_reading()
        if f is None:
            return 0
        with f:
            return self._current(f).count

    def size_bytes(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise StorageError(f"cannot read {self.path} ({exc.strerror or exc})") from exc

    def read_line(self, index: int) -> dict[str, Any] | None:
        """The record on line `index`, or None if that line is not a JSON object."""
        f = self._open_for_reading()
        if f is None:
            raise IndexError(f"line {index} is out of range: {self.path} does not exist")
        with f:
            view = self._current(f)
            if not 0 <= index < view.count:
                raise IndexError(f"line {index} is out of range: {self.path} has {view.count}")
            for _ in range(2):
                try:
                    start, stop = self._offsets(view, index, index + 1)
                    return _parse(self._line_at(f, start, stop))
                except _StaleIndexError:
                    view = self._recover(f)
            raise StorageError(f"{self.path} changed while being read; try again")

    def iter_from(self, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, record) from line `start` to the last complete line as of the first `next`."""
        if start < 0:
            raise ValueError(f"start must be >= 0, not {start}")
        return self._iter_from(start)

    def _iter_from(self, start: int) -> Iterator[tuple[int, dict[str, Any]]]:
        f = self._open_for_reading()
        if f is None:
            return
        with f:
            view = self._current(f)
            if start >= view.count:
                return
            for _ in range(2):
                try:
                    offset = self._offsets(view, start, start)[0]
                    if offset and _read_at(f, offset - 1, 1) != b"\n":
                        raise _StaleIndexError
                    break
                except _StaleIndexError:
                    view = self._recover(f)
            else:
                raise StorageError(f"{self.path} changed while being read; try again")
            line = start
            for raw in _split_lines(f, offset, view.end):
                record = _parse(raw)
                if record is None:
                    self._warn_corrupt(view, line)
                else:
                    yield line, record
                line += 1

    def iter_reverse(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line, record) from the last complete line back to the first, via the index."""
        f = self._open_for_reading()
        if f is None:
            return
        with f:
            view = self._current(f)
            line = view.count - 1
            retries = 0
            while line >= 0:
                low = max(0, line - _BLOCK + 1)
                try:
                    offsets = self._offsets(view, low, line + 1)
                    while line >= low:
                        raw = self._line_at(f, offsets[line - low], offsets[line - low + 1])
                        record = _parse(raw)
                        if record is None:
                            self._warn_corrupt(view, line)
                        else:
                            yield line, record
                        line -= 1
                except _StaleIndexError:
                    retries += 1
                    if retries > 2:
                        raise StorageError(f"{self.path} changed while being read") from None
                    view = self._recover(f)

    def tail(self, n: int) -> list[tuple[int, dict[str, Any]]]:
        """The last `n` valid records, oldest first."""
        found: list[tuple[int, dict[str, Any]]] = []
        if n <= 0:
            return found
        with contextlib.closing(self.iter_reverse()) as records:
            for item in records:
                found.append(item)
                if len(found) == n:
                    break
        found.reverse()
        return found

    # ----- the view --------------------------------------------------------------------------

    def _open_for_reading(self) -> FileIO | None:
        try:
            return open(self.path, "rb", buffering=0)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read {self.path} ({exc.strerror or exc})") from exc

    def _current(self, f: FileIO) -> _View:
        """The cached view, brought up to date with what other writers appended since."""
        st = os.fstat(f.fileno())
        file_id = (st.st_dev, st.st_ino)
        view = self._view
        if view.file_id != file_id or st.st_size < view.end:
            view = self._load(f)
        elif st.st_size > view.end:
            ends = _line_ends(f, view.end, st.st_size)
            if ends:
                view = replace(view, tail=(*view.tail, view.end, *ends[:-1]), end=ends[-1])
        if view.tail:
            view = self._adopt_index(view)
        self._view = view
        if view.tail or not view.index_ok:
            repaired = self._try_repair(trust_index=view.trusted)
            if repaired is not None and repaired.file_id == file_id:
                return repaired
        return view

    def _load(self, f: FileIO, *, trust_index: bool = True) -> _View:
        """A fresh view: check the index cheaply, then scan only the lines after it."""
        st = os.fstat(f.fileno())
        size = st.st_size
        indexed, scan_from, index_ok = 0, 0, True
        index_size = self._index_size()
        entries = index_size // _ENTRY
        if trust_index and entries:
            last_end = self._check_index(f, size, entries)
            if last_end is None:
                _log.debug("%s does not match %s; rebuilding it", self.index_path, self.path)
                index_ok = False
            else:
                indexed, scan_from = entries, last_end
        elif not trust_index:
            index_ok = False
        ends = _line_ends(f, scan_from, size)
        return _View(
            file_id=(st.st_dev, st.st_ino),
            indexed=indexed,
            tail=(scan_from, *ends[:-1]) if ends else (),
            end=ends[-1] if ends else scan_from,
            index_ok=index_ok,
            trusted=trust_index,
            index_seen=index_size,
        )

    def _check_index(self, f: FileIO, size: int, entries: int) -> int | None:
        """The end of the last indexed line if the first and last two entries fit the log."""
        first = self._read_entries(0, 1)
        last_two = self._read_entries(max(0, entries - 2), min(entries, 2))
        if first != [0] or last_two is None or last_two[-1] >= size:
            return None
        last = last_two[-1]
        if len(last_two) == 2:
            previous = last_two[0]
            if not previous < last:
                return None
            try:
                self._line_at(f, previous, last)
            except _StaleIndexError:
                return None
        elif last != 0:
            return None
        return _first_line_end(f, last, size)

    def _adopt_index(self, view: _View) -> _View:
        """Move tail offsets that another process has since written to the index into it."""
        index_size = self._index_size()
        if index_size == view.index_seen:
            return view
        view = replace(view, index_seen=index_size)
        known = min(index_size // _ENTRY, view.count) - view.indexed
        if known <= 0:
            return view
        entries = self._read_entries(view.indexed, known)
        if entries is None or tuple(entries) != view.tail[:known]:
            return view
        return replace(
            view,
            indexed=view.indexed + known,
            tail=view.tail[known:],
            index_ok=True,
            trusted=True,
        )

    def _recover(self, f: FileIO) -> _View:
        """Answer an index found wrong mid-file: scan everything, then try to fix it on disk."""
        _log.debug("%s disagrees with %s; rescanning", self.index_path, self.path)
        view = self._load(f, trust_index=False)
        self._view = view
        repaired = self._try_repair(trust_index=False)
        if repaired is not None and repaired.file_id == view.file_id:
            return repaired
        return view

    def _offsets(self, view: _View, low: int, high: int) -> list[int]:
        """Start offsets of lines `low..high` inclusive, where line `count` starts at `end`."""
        result: list[int] = []
        if low < view.indexed:
            stop = min(high + 1, view.indexed)
            entries = self._read_entries(low, stop - low)
            if entries is None:
                raise _StaleIndexError
            result.extend(entries)
        for line in range(max(low, view.indexed), high + 1):
            result.append(view.end if line == view.count else view.tail[line - view.indexed])
        return result

    def _line_at(self, f: FileIO, start: int, stop: int) -> bytes:
        """The bytes of the line at [start, stop) without its `\\n`, after checking they are one."""
        lead = 1 if start > 0 else 0
        data = _read_at(f, start - lead, stop - start + lead)
        if (
            stop <= start
            or len(data) != stop - start + lead
            or (lead and data[0] != _NL)
            or data.find(b"\n", lead) != len(data) - 1
        ):
            raise _StaleIndexError
        return data[lead:-1]

    def _index_size(self) -> int:
        try:
            return self.index_path.stat().st_size
        except OSError:  # missing or unreadable: the index is only a cache
            return 0

    def _read_entries(self, first: int, count: int) -> list[int] | None:
        try:
            with open(self.index_path, "rb", buffering=0) as f:
                data = _read_at(f, first * _ENTRY, count * _ENTRY)
        except OSError:
            return None
        if len(data) != count * _ENTRY:
            return None
        return list(struct.unpack(f"<{count}Q", data))

    def _warn_corrupt(self, view: _View, line: int) -> None:
        key = (view.file_id, line)
        if key not in self._warned:
            self._warned.add(key)
            _log.warning("%s line %d is not a JSON object; skipping it", self.path, line + 1)


def _pack(offsets: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(offsets)}Q", *offsets)


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_at(f: FileIO, offset: int, size: int) -> bytes:
    f.seek(offset)
    parts: list[bytes] = []
    while size > 0:
        chunk = f.read(size)
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _line_ends(f: FileIO, start: int, stop: int) -> list[int]:
    """Offsets just past each `\\n` in [start, stop)."""
    ends: list[int] = []
    position = start
    f.seek(start)
    while position < stop:
        chunk = f.read(min(_CHUNK, stop - position))
        if not chunk:
            break
        found = chunk.find(b"\n")
        while found != -1:
            ends.append(position + found + 1)
            found = chunk.find(b"\n", found + 1)
        position += len(chunk)
    return ends


def _first_line_end(f: FileIO, start: int, stop: int) -> int | None:
    """Offset just past the first `\\n` at or after `start`, or None if the line is unfinished."""
    position = start
    f.seek(start)
    while position < stop:
        chunk = f.read(min(_CHUNK, stop - position))
        if not chunk:
            return None
        found = chunk.find(b"\n")
        if found != -1:
            return position + found + 1
        position += len(chunk)
    return None


def _split_lines(f: FileIO, start: int, stop: int) -> Iterator[bytes]:
    """The complete lines in [start, stop), without their `\\n`, read in chunks."""
    pending = bytearray()
    position = start
    f.seek(start)
    while position < stop:
        chunk = f.read(min(_CHUNK, stop - position))
        if not chunk:
            return
        position += len(chunk)
        pieces = chunk.split(b"\n")
        pending += pieces[0]
        if len(pieces) == 1:
            continue
        yield bytes(pending)
        yield from pieces[1:-1]
        pending = bytearray(pieces[-1])
