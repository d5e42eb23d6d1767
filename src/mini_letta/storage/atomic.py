"""Whole files (JSON documents, memory files) written atomically, and the quarantine of bad files.

Invariants: a reader sees either the old or the new complete document, never a mix (temp file in
the same folder, fsync, `os.replace`, fsync of the folder); a failed save leaves no temp file; a
corrupt file is reported with `CorruptFileError` and never reset or overwritten here.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import json
import os
import stat
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mini_letta import log
from mini_letta.errors import CorruptFileError, StorageError, UnwritableError
from mini_letta.ids import random_hex


def save_json(path: Path, data: Mapping[str, object]) -> None:
    """Replace `path` with `data` as pretty UTF-8 JSON, all or nothing, surviving power loss."""
    # Serialise first: a TypeError for an unserialisable value must not touch the disk.
    payload = (json.dumps(dict(data), ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    save_bytes(path, payload)


def save_bytes(path: Path, payload: bytes, *, private: bool = False) -> None:
    """Replace `path` with `payload`, all or nothing (temp file, fsync, rename, fsync folder).

    `private`: the new file is its owner's alone (0600), whatever it replaces or the umask."""
    folder = path.parent
    temp = os.path.join(folder, f".{path.name}.{os.getpid()}.{random_hex(4)}.tmp")
    try:
        try:
            fd = _create(temp, private)
        except (FileNotFoundError, NotADirectoryError):  # the folder first, only when missing
            folder.mkdir(parents=True, exist_ok=True)
            fd = _create(temp, private)
        try:
            if private and hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            else:
                _keep_mode(path, fd)
            write_all(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise UnwritableError(path, _reason(exc)) from exc
    try:
        fsync_directory(folder)
    except OSError as exc:
        raise UnwritableError(path, _reason(exc)) from exc


def _create(temp: str, private: bool) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    return os.open(temp, flags, 0o600 if private else 0o666)


def load_json(path: Path) -> dict[str, Any] | None:
    """The JSON object stored at `path`, or None if there is no such file."""
    try:
        with open(path, "rb") as file:
            raw = file.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot read {path} ({_reason(exc)})") from exc
    skipped = 0
    if raw.startswith(codecs.BOM_UTF8):  # editors on Windows add one; it carries no data
        raw = raw[len(codecs.BOM_UTF8) :]
        skipped = len(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(path, f"not valid UTF-8 at byte {exc.start + skipped}") from exc
    if not text.strip():
        raise CorruptFileError(path, "the file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        detail = f"invalid JSON at line {exc.lineno} column {exc.colno}"
        raise CorruptFileError(path, detail) from exc
    if not isinstance(data, dict):
        raise CorruptFileError(path, f"top level is {_kind(data)}, expected an object")
    return data


def quarantine_file(path: Path, now: datetime) -> Path:
    """Move a bad file aside as `<name>.corrupt-<YYYYMMDDHHMMSS>[-N]` and return where it went.

    Aware times are stamped in UTC, like every timestamp on disk. The move never overwrites an
    earlier quarantined copy: `os.link` fails if the name is taken, unlike `os.rename`.
    """
    moment = now.astimezone(UTC) if now.tzinfo is not None else now
    base = f"{path.name}.corrupt-{moment.strftime('%Y%m%d%H%M%S')}"
    attempt = 1
    while True:
        target = path.with_name(base if attempt == 1 else f"{base}-{attempt}")
        attempt += 1
        if os.path.lexists(target):
            continue
        try:
            _move_without_clobbering(path, target)
        except FileExistsError:
            continue
        except OSError as exc:
            raise UnwritableError(path, _reason(exc)) from exc
        break
    with contextlib.suppress(OSError):  # the move happened; durability of the name is a bonus
        fsync_directory(path.parent)
    log.info("moved corrupt file %s aside to %s", path, target.name)
    return target


def write_all(fd: int, data: bytes) -> None:
    """`os.write` until every byte is written (a write may be short on a full disk or signal)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_directory(folder: Path) -> None:
    """Make a create/rename inside `folder` durable; a no-op where folders cannot be fsynced."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # e.g. Windows, where a folder cannot be opened and renames are durable anyway
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _move_without_clobbering(source: Path, target: Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.EACCES, errno.EROFS):
            raise
        # No hard links on this file system: fall back to a checked rename.
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "exists", str(target)) from exc
        os.rename(source, target)
        return
    os.unlink(source)


def _keep_mode(path: Path, fd: int) -> None:
    """Give the replacement the permissions of the file it replaces (e.g. a private 0600)."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return
    if hasattr(os, "fchmod"):  # not on Windows before 3.13
        with contextlib.suppress(OSError):
            os.fchmod(fd, mode)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
