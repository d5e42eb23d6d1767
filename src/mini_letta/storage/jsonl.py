"""Append-only JSONL logs with a sidecar offset index, safe across processes and crashes.

Owns `<log>`, `<log>.idx` (little-endian uint64 start offset per line) and `<log>.lock`. A record
exists once its `\\n`-terminated line is fsynced; bytes after the last `\\n` were never acknowledged
and the next append cuts them; lines never change; the index is a checked cache, written only
under the lock; readers never lock, never wait and never write the log.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
from collections.abc import Generator, Iterator, Mapping, Sequence
from io import FileIO
from itertools import accumulate, islice
from pathlib import Path
from typing import Any

from mini_letta import log
from mini_letta.errors import StorageError, UnwritableError
from mini_letta.home import index_file_for, lock_file_for
from mini_letta.ids import random_hex
from mini_letta.storage.atomic import fsync_directory, write_all
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct, replace

_ENTRY = 8  # bytes per index entry
_CHUNK = 1 << 16
_BLOCK = 256  # index entries fetched at once when walking backwards
_SAMPLES = 32  # index entries checked when an index is first trusted (all of a shorter one);
# each is a read at a scattered place in the log, so a large cold log pays for every one
_BINARY = getattr(os, "O_BINARY", 0)  # Windows would otherwise translate newlines

Records = Iterator[tuple[int, dict[str, Any]]]


class _View(Struct, frozen=True):
    """One instance's knowledge of the log, replaced and never mutated: lines `[0, indexed)`
    have checked offsets in the index file, `tail` has the later ones in memory only, `end` is
    the byte after the last complete line; `index_ok` False (so `indexed` 0) means rebuild it."""

    file_id: tuple[int, int] | None
    indexed: int = 0
    tail: tuple[int, ...] = ()
    end: int = 0
    index_ok: bool = True

    @property
    def count(self) -> int:
        return self.indexed + len(self.tail)


class _StaleIndexError(Exception):
    """An index entry disagrees with the log; internal, answered by a full scan."""


class JsonlLog:
    """One JSONL file. Instances are cheap; each re-checks the file size on every call."""

    def __init__(self, path: Path, *, lock_timeout: float = 30.0) -> None:
        self.path = path
        self.index_path = index_file_for(path)
        self.lock_path = lock_file_for(path)
        self._lock_timeout = lock_timeout
        self._view = _View(file_id=None)
        self._warned: set[tuple[tuple[int, int] | None, int]] = set()

    def append(self, records: Sequence[Mapping[str, Any]]) -> list[int]:
        """Durably add `records` as new lines and return their 0-based line indices."""
        lines = [
            (json.dumps(dict(r), ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
            for r in records
        ]
        if not lines:
            return []
        with exclusive_lock(self.lock_path, timeout=self._lock_timeout, what=self.path.name):
            try:
                return self._append_locked(lines)
            except OSError as exc:
                raise UnwritableError(self.path, exc.strerror or str(exc)) from exc

    def _append_locked(self, lines: list[bytes]) -> list[int]:
        created = not self.path.exists()
        with open(self.path, "a+b", buffering=0) as f:
            view = self._load(f)
            torn = os.fstat(f.fileno()).st_size - view.end
            if torn:
                log.warning("%s: cutting %d bytes of an unfinished record", self.path, torn)
                f.truncate(view.end)
            offsets = list(accumulate(map(len, lines[:-1]), initial=view.end))
            position = offsets[-1] + len(lines[-1])
            write_all(f.fileno(), b"".join(lines))  # one write: no interleaving, no gaps
            os.fsync(f.fileno())
        if created:
            fsync_directory(self.path.parent)
        self._view = self._save_index(replace(view, tail=(*view.tail, *offsets), end=position))
        return list(range(view.count, view.count + len(lines)))

    def _save_index(self, view: _View) -> _View:
        """Bring the index file up to `view` (lock held), or keep the offsets in memory.

        No fsync: the log's fsync is the acknowledgement; an index that lost writes in a power cut
        fails the checks in `_load` and is extended or rebuilt."""
        try:
            if not view.index_ok:  # rebuild by rename, so readers see the old or new file whole
                name = f".{self.index_path.name}.{os.getpid()}.{random_hex(4)}.tmp"
                temp = self.index_path.with_name(name)
                try:
                    temp.write_bytes(_pack(view.tail))  # not index_ok implies indexed == 0
                    os.replace(temp, self.index_path)
                finally:
                    with contextlib.suppress(FileNotFoundError):
                        temp.unlink()
            elif view.tail:
                fd = os.open(self.index_path, os.O_WRONLY | os.O_CREAT | _BINARY, 0o666)
                try:
                    os.ftruncate(fd, view.indexed * _ENTRY)  # drops a torn trailing entry
                    os.lseek(fd, view.indexed * _ENTRY, os.SEEK_SET)
                    write_all(fd, _pack(view.tail))
                finally:
                    os.close(fd)
        except OSError as exc:
            log.warning("could not update %s (%s); it will be rebuilt", self.index_path, exc)
            return view
        return replace(view, indexed=view.count, tail=(), index_ok=True)

    def _try_repair(self, view: _View) -> _View:
        """Persist a lagging or wrong index for later readers, but only if the lock is free."""
        try:
            with (
                exclusive_lock(self.lock_path, timeout=0, what=self.path.name),
                open(self.path, "rb", buffering=0) as f,
            ):
                fixed = self._save_index(self._load(f, trust_index=view.index_ok))
        except (StorageError, OSError) as exc:  # busy (LockTimeoutError), gone or read-only
            log.debug("left %s unrepaired: %s", self.index_path, exc)
            return view
        if fixed.file_id == view.file_id:
            self._view = view = fixed
        return view

    def count(self) -> int:
        """Number of complete lines, valid or not."""
        f = self._open_for_reading()
        if f is None:
            return 0
        with f:
            return self._current(f).count

    def read_line(self, index: int) -> dict[str, Any] | None:
        """The record on line `index`, or None if that line is not a JSON object."""
        f = self._open_for_reading()
        if f is None:
            raise IndexError(f"line {index} is out of range: {self.path} does not exist")
        with f:
            view = self._current(f)
            if not 0 <= index < view.count:
                raise IndexError(f"line {index} is out of range: {self.path} has {view.count}")
            return _parse(self._line(f, view, index)[2])

    def iter_from(self, start: int = 0) -> Records:
        """(line, record) from line `start` to the last complete line as of the first `next`."""
        if start < 0:
            raise ValueError(f"start must be >= 0, not {start}")
        return self._iter_from(start)

    def _iter_from(self, start: int) -> Records:
        f = self._open_for_reading()
        if f is None:
            return
        with f:
            view = self._current(f)
            if start >= view.count:
                return
            view, offset, _ = self._line(f, view, start)  # checks the seek target
            line = start
            for raw in _split_lines(f, offset, view.end):
                if (record := self._record(view, line, raw)) is not None:
                    yield line, record
                line += 1

    def iter_reverse(self) -> Generator[tuple[int, dict[str, Any]], None, None]:
        """(line, record) from the last complete line back to the first, via the index."""
        f = self._open_for_reading()
        if f is None:
            return
        with f:
            view = self._current(f)
            line, rescans = view.count - 1, 0
            window = _Window(f)
            while line >= 0:
                low = max(0, line - _BLOCK + 1)
                try:
                    offsets = self._offsets(view, low, line + 1)
                    while line >= low:
                        start, stop = offsets[line - low], offsets[line - low + 1]
                        raw = self._line_at(f, start, stop, window)
                        if (record := self._record(view, line, raw)) is not None:
                            yield line, record
                        line -= 1
                except _StaleIndexError:
                    rescans += 1
                    if rescans > 2:
                        raise StorageError(f"{self.path} changed while being read") from None
                    view = self._recover(f)

    def tail(self, n: int) -> list[tuple[int, dict[str, Any]]]:
        """The last `n` valid records, oldest first."""
        if n <= 0:
            return []
        with contextlib.closing(self.iter_reverse()) as records:
            return list(islice(records, n))[::-1]

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
        view = self._view
        if view.file_id != (st.st_dev, st.st_ino) or st.st_size < view.end:
            view = self._load(f)
        elif st.st_size > view.end:
            ends = _line_ends(f, view.end, st.st_size)
            if ends:
                view = replace(view, tail=(*view.tail, view.end, *ends[:-1]), end=ends[-1])
        # Usually the writer has indexed those new lines already: adopt them without the lock.
        covered = view.tail and view.index_ok and self._index_size() // _ENTRY >= view.count
        if covered and self._read_entries(view.indexed, len(view.tail)) == list(view.tail):
            view = replace(view, indexed=view.count, tail=())
        self._view = view
        return self._try_repair(view) if view.tail or not view.index_ok else view

    def _recover(self, f: FileIO) -> _View:
        """Answer an index found wrong mid-file: believe only a full scan, and fix the file."""
        log.debug("%s disagrees with %s; rescanning", self.index_path, self.path)
        self._view = self._load(f, trust_index=False)
        return self._try_repair(self._view)

    def _load(self, f: FileIO, *, trust_index: bool = True) -> _View:
        """A fresh view: check the index cheaply, then scan only the lines after it."""
        st = os.fstat(f.fileno())
        indexed, scan_from, index_ok = 0, 0, trust_index
        index_size = self._index_size()
        if trust_index and st.st_size <= _CHUNK:
            return self._load_small(f, st, index_size // _ENTRY)
        if trust_index and index_size >= _ENTRY:
            last_end = self._check_index(f, st.st_size, index_size // _ENTRY)
            if last_end is None:
                index_ok = False
                log.debug("%s does not match %s; rebuilding it", self.index_path, self.path)
            else:
                indexed, scan_from = index_size // _ENTRY, last_end
        ends = _line_ends(f, scan_from, st.st_size)
        return _View(
            file_id=(st.st_dev, st.st_ino),
            indexed=indexed,
            tail=(scan_from, *ends[:-1]) if ends else (),
            end=ends[-1] if ends else scan_from,
            index_ok=index_ok,
        )

    def _load_small(self, f: FileIO, st: os.stat_result, entries: int) -> _View:
        """A fresh view of a log of at most one chunk: one read finds every line, and the
        index is checked whole against them (sampling it read each entry and the byte before
        each line apart, dozens of reads for the few lines most logs have)."""
        ends = _line_ends(f, 0, st.st_size)
        starts = [0, *ends[:-1]] if ends else []
        index_ok = entries == 0 or (
            entries <= len(starts) and self._read_entries(0, entries) == starts[:entries]
        )
        indexed = entries if index_ok else 0
        return _View(
            file_id=(st.st_dev, st.st_ino),
            indexed=indexed,
            tail=tuple(starts[indexed:]),
            end=ends[-1] if ends else 0,
            index_ok=index_ok,
        )

    def _check_index(self, f: FileIO, size: int, entries: int) -> int | None:
        """The end of the last indexed line if the index is plausible for the log.

        Up to `_SAMPLES` evenly spaced entries (all of a short index) plus the last two are read:
        they must start at 0, stay below `size`, each start a line, and increase by at least one
        byte per line between them, so the index cannot claim more lines than the log holds (a
        duplicated index starts again from 0 where its copy begins). The last two must frame one
        line. That is O(1) reads; an unsampled entry pointing mid-line is caught when read."""
        positions = _sample_positions(entries)
        offsets = self._read_sampled(positions)
        if offsets is None or offsets[0] != 0 or offsets[-1] >= size:
            return None
        steps = zip(positions, offsets, positions[1:], offsets[1:], strict=False)
        if any(o2 - o1 < p2 - p1 for p1, o1, p2, o2 in steps):
            return None
        if any(_read_at(f, offset - 1, 1) != b"\n" for offset in offsets[1:]):
            return None
        last_two = offsets[-2:]
        if len(last_two) == 2:
            try:
                self._line_at(f, last_two[0], last_two[1])
            except _StaleIndexError:
                return None
        ends = _line_ends(f, last_two[-1], size, first_only=True)
        return ends[0] if ends else None

    def _line(self, f: FileIO, view: _View, index: int) -> tuple[_View, int, bytes]:
        """(view, start offset, bytes) of line `index`, rescanning if the index is wrong."""
        for _ in range(3):
            try:
                start, stop = self._offsets(view, index, index + 1)
                return view, start, self._line_at(f, start, stop)
            except _StaleIndexError:
                view = self._recover(f)
        raise StorageError(f"{self.path} changed while being read; try again")

    def _offsets(self, view: _View, low: int, high: int) -> list[int]:
        """Start offsets of lines `low..high` inclusive, where line `count` starts at `end`."""
        result: list[int] = []
        if low < view.indexed:
            entries = self._read_entries(low, min(high + 1, view.indexed) - low)
            if entries is None:
                raise _StaleIndexError
            result.extend(entries)
        for line in range(max(low, view.indexed), high + 1):
            result.append(view.end if line == view.count else view.tail[line - view.indexed])
        return result

    def _line_at(self, f: FileIO, start: int, stop: int, window: _Window | None = None) -> bytes:
        """The line at [start, stop) without its `\\n`, after checking that it is one line."""
        lead = 1 if start > 0 else 0
        size = stop - start + lead
        if window is None:
            data = _read_at(f, start - lead, size)
        else:
            data = window.read(start - lead, stop)
        if stop <= start or len(data) != size or data.find(b"\n", lead) != size - 1:
            raise _StaleIndexError
        if lead and data[0] != 0x0A:
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

    def _read_sampled(self, positions: Sequence[int]) -> list[int] | None:
        """The index entries at `positions`, or None if any of them is missing."""
        try:
            with open(self.index_path, "rb", buffering=0) as f:
                raw = [_read_at(f, position * _ENTRY, _ENTRY) for position in positions]
        except OSError:
            return None
        if any(len(entry) != _ENTRY for entry in raw):
            return None
        return [struct.unpack("<Q", entry)[0] for entry in raw]

    def _record(self, view: _View, line: int, raw: bytes) -> dict[str, Any] | None:
        """The parsed line, or None after one warning per instance and line."""
        record = _parse(raw)
        if record is None and (view.file_id, line) not in self._warned:
            self._warned.add((view.file_id, line))
            log.warning("%s line %d is not a JSON object; skipping it", self.path, line + 1)
        return record


def _sample_positions(entries: int) -> list[int]:
    """Up to `_SAMPLES` evenly spaced positions in [0, entries), always with the last two."""
    count = min(entries, _SAMPLES)
    spaced = {(entries - 1) * i // max(1, count - 1) for i in range(count)}
    return sorted(spaced | {max(0, entries - 2), entries - 1})


def _pack(offsets: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(offsets)}Q", *offsets)


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        text = raw.decode("utf-8")
        try:  # a line as we write it: no space around the value, the decoder called directly
            value, end = _DECODER.raw_decode(text)
        except ValueError:
            end = -1
        if end != len(text):  # anything else takes json.loads's own path and verdict
            value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


_DECODER = json.JSONDecoder()


class _Window:
    """The log read backwards a chunk at a time: a walk from the end reads each chunk once
    instead of making a seek and a read for every line (lines never change, and each is
    checked as before)."""

    __slots__ = ("f", "start", "data")

    def __init__(self, f: FileIO) -> None:
        self.f = f
        self.start = 0
        self.data = b""

    def read(self, start: int, stop: int) -> bytes:
        """The bytes in [start, stop), fewer where the file ends first."""
        if start < self.start or stop > self.start + len(self.data):
            self.start = max(0, min(start, stop - _CHUNK))
            self.data = _read_at(self.f, self.start, stop - self.start)
        return self.data[start - self.start : stop - self.start]


def _read_at(f: FileIO, offset: int, size: int) -> bytes:
    f.seek(offset)
    parts: list[bytes] = []
    while size > 0 and (chunk := f.read(size)):
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _line_ends(f: FileIO, start: int, stop: int, *, first_only: bool = False) -> list[int]:
    """Offsets just past each `\\n` in [start, stop), read in chunks."""
    ends: list[int] = []
    position = start
    f.seek(start)
    while position < stop and (chunk := f.read(min(_CHUNK, stop - position))):
        found = chunk.find(b"\n")
        while found != -1:
            ends.append(position + found + 1)
            if first_only:
                return ends
            found = chunk.find(b"\n", found + 1)
        position += len(chunk)
    return ends


def _split_lines(f: FileIO, start: int, stop: int) -> Iterator[bytes]:
    """The complete lines in [start, stop), without their `\\n`, read in chunks."""
    pending = bytearray()
    position = start
    f.seek(start)
    while position < stop and (chunk := f.read(min(_CHUNK, stop - position))):
        position += len(chunk)
        pieces = chunk.split(b"\n")
        pending += pieces[0]
        if len(pieces) > 1:
            yield bytes(pending)
            yield from pieces[1:-1]
            pending = bytearray(pieces[-1])
