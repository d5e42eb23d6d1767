"""JSONL logs on real files: reads, torn tails, bad lines, index recovery, processes, crashes."""

from __future__ import annotations

import itertools
import json
import logging
import os
import random
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import mini_letta
from mini_letta.errors import LockTimeoutError, UnwritableError
from mini_letta.storage.jsonl import _CHUNK, JsonlLog
from support.forker import Forker

SRC = Path(mini_letta.__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(SRC)}


def line_starts(path: Path) -> list[int]:
    """Start offsets of the complete lines, computed independently of the code under test."""
    data = path.read_bytes()
    ends = list(itertools.accumulate(len(line) + 1 for line in data.split(b"\n")[:-1]))
    return [0, *ends[:-1]] if ends else []


def index_entries(log: JsonlLog) -> list[int]:
    data = log.index_path.read_bytes()
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def records(log: JsonlLog) -> list[dict[str, Any]]:
    return [record for _, record in log.iter_from()]


def filled(tmp_path: Path, n: int = 5, size: str = "small") -> JsonlLog:
    """A log of `n` records; a "large" one is longer than the one chunk a small log is read in
    whole, so a fresh reader checks its index by sampling instead."""
    log = JsonlLog(tmp_path / "conv" / "messages.jsonl")
    log.append([message(i, n, size) for i in range(n)])
    assert (log.path.stat().st_size > _CHUNK) == (size == "large")
    return log


def message(i: int, n: int, size: str = "small") -> dict[str, Any]:
    pad = "" if size == "small" else "." * (_CHUNK // n + 1)
    return {"i": i, "text": f"message {i} ✓{pad}"}


SIZES = pytest.mark.parametrize("size", ["small", "large"])


def test_missing_log_is_empty(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "none.jsonl")

    assert log.count() == 0
    assert not log.path.exists()
    assert list(log.iter_from()) == []
    assert list(log.iter_reverse()) == []
    assert log.tail(3) == []
    with pytest.raises(IndexError):
        log.read_line(0)
    assert log.append([]) == []
    assert not log.path.exists()


def test_append_and_every_way_of_reading(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "new" / "folder" / "messages.jsonl")

    assert log.append([{"i": 0}, {"i": 1, "text": "naïve"}]) == [0, 1]
    assert log.append([{"i": 2}]) == [2]
    assert log.append([{"i": 3}, MappingProxyType({"i": 4})]) == [3, 4]

    assert log.path.name == "messages.jsonl"
    assert log.index_path.name == "messages.jsonl.idx"
    assert log.lock_path.name == "messages.jsonl.lock"
    assert log.count() == 5
    assert log.read_line(1) == {"i": 1, "text": "naïve"}
    assert log.read_line(4) == {"i": 4}
    with pytest.raises(IndexError):
        log.read_line(5)
    with pytest.raises(IndexError):
        log.read_line(-1)
    assert [i for i, _ in log.iter_from()] == [0, 1, 2, 3, 4]
    assert list(log.iter_from(3)) == [(3, {"i": 3}), (4, {"i": 4})]
    assert list(log.iter_from(9)) == []
    assert [i for i, _ in log.iter_reverse()] == [4, 3, 2, 1, 0]
    assert log.tail(2) == [(3, {"i": 3}), (4, {"i": 4})]
    assert log.tail(0) == []
    assert [i for i, _ in log.tail(50)] == [0, 1, 2, 3, 4]
    assert log.path.read_bytes().splitlines()[1] == '{"i":1,"text":"naïve"}'.encode()
    assert index_entries(log) == line_starts(log.path)
    with pytest.raises(ValueError):
        log.iter_from(-1)


def test_reverse_walk_crosses_index_blocks(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "big.jsonl")
    log.append([{"i": i} for i in range(600)])

    assert [i for i, _ in log.iter_reverse()] == list(range(599, -1, -1))
    assert [r["i"] for _, r in JsonlLog(log.path).tail(300)] == list(range(300, 600))


@SIZES
def test_torn_tail_is_ignored_then_cut_by_the_next_append(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, size: str
) -> None:
    log = filled(tmp_path, 3, size)
    with log.path.open("ab") as f:
        f.write(b'{"i": 3, "text": "never fini')

    fresh = JsonlLog(log.path)
    assert fresh.count() == 3 == log.count()
    assert [r["i"] for r in records(fresh)] == [0, 1, 2]
    assert [i for i, _ in fresh.iter_reverse()] == [2, 1, 0]
    assert fresh.tail(1) == [(2, message(2, 3, size))]
    assert not caplog.records  # silently

    assert log.append([{"i": "new"}]) == [3]

    assert fresh.read_line(3) == {"i": "new"}
    pad = message(2, 3, size)["text"][len("message 2 ✓") :]
    assert log.path.read_bytes().endswith(f'message 2 ✓{pad}"}}\n{{"i":"new"}}\n'.encode())
    assert index_entries(log) == line_starts(log.path)


def test_line_being_written_is_not_there_yet(tmp_path: Path) -> None:
    log = filled(tmp_path, 2)
    with log.path.open("ab") as f:
        f.write(b'{"i": 2')
        f.flush()
        assert log.count() == 2
        f.write(b"}\n")
        f.flush()
        assert log.count() == 3
        assert log.read_line(2) == {"i": 2}


def test_garbage_middle_line_is_skipped_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "messages.jsonl"
    path.write_bytes(b'{"i": 0}\nnot json at all\n["\xff"]\n{"i": 3}\n')
    log = JsonlLog(path)

    with caplog.at_level(logging.WARNING, logger="mini_letta"):
        assert list(log.iter_from()) == [(0, {"i": 0}), (3, {"i": 3})]
        assert list(log.iter_from(1)) == [(3, {"i": 3})]

    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        f"{path} line 2 is not a JSON object; skipping it",
        f"{path} line 3 is not a JSON object; skipping it",
    ]
    assert log.count() == 4
    assert log.read_line(1) is None
    assert log.read_line(2) is None
    assert log.read_line(3) == {"i": 3}
    assert [i for i, _ in log.iter_reverse()] == [3, 0]
    assert log.tail(2) == [(0, {"i": 0}), (3, {"i": 3})]
    assert log.append([{"i": 4}]) == [4]
    assert log.read_line(4) == {"i": 4}


@SIZES
def test_missing_index_is_rebuilt(tmp_path: Path, size: str) -> None:
    log = filled(tmp_path, 5, size)
    log.index_path.unlink()

    fresh = JsonlLog(log.path)
    assert fresh.count() == 5
    assert fresh.read_line(3) == message(3, 5, size)
    assert index_entries(fresh) == line_starts(log.path)  # written back while the lock was free

    other = tmp_path / "written-elsewhere.jsonl"
    other.write_text("".join(json.dumps({"i": i}) + "\n" for i in range(4)))
    assert JsonlLog(other).tail(2) == [(2, {"i": 2}), (3, {"i": 3})]
    assert JsonlLog(other).append([{"i": 4}]) == [4]
    assert index_entries(JsonlLog(other)) == line_starts(other)


@SIZES
def test_stale_index_is_extended(tmp_path: Path, size: str) -> None:
    log = filled(tmp_path, 6, size)
    full = log.index_path.read_bytes()
    log.index_path.write_bytes(full[: 8 * 2])  # crash after the log write, before the index

    fresh = JsonlLog(log.path)
    assert fresh.count() == 6
    assert fresh.read_line(5) == message(5, 6, size)
    assert [i for i, _ in fresh.iter_reverse()] == [5, 4, 3, 2, 1, 0]
    assert log.index_path.read_bytes() == full


@pytest.mark.parametrize(
    "damage",
    [
        "longer than the log",
        "garbage",
        "not a multiple of 8",
        "non-increasing",
        "points into a line",
        "from another log",
        "empty entries",
    ],
)
@SIZES
def test_invalid_index_is_rebuilt(tmp_path: Path, damage: str, size: str) -> None:
    log = filled(tmp_path, 6, size)
    good = index_entries(log)
    end = log.path.stat().st_size
    bad = {
        "longer than the log": struct.pack("<8Q", *good, end, end + 40),
        "garbage": bytes(random.Random(1).randrange(256) for _ in range(48)),
        "not a multiple of 8": log.index_path.read_bytes()[:-3],
        "non-increasing": struct.pack("<6Q", *good[:4], good[5], good[4]),
        "points into a line": struct.pack("<6Q", *good[:5], good[5] + 3),
        "from another log": struct.pack("<3Q", 0, 7, 19),
        "empty entries": b"\0" * 48,
    }[damage]
    log.index_path.write_bytes(bad)

    for reader in (JsonlLog(log.path), log):
        assert reader.count() == 6
        assert reader.read_line(5) == message(5, 6, size)
        assert [r["i"] for r in records(reader)] == [0, 1, 2, 3, 4, 5]
        assert [i for i, _ in reader.iter_reverse()] == [5, 4, 3, 2, 1, 0]
    assert log.append([{"i": 6}]) == [6]
    assert JsonlLog(log.path).read_line(6) == {"i": 6}
    assert index_entries(log) == line_starts(log.path)


@SIZES
def test_wrong_entry_in_the_middle_of_the_index_is_noticed(tmp_path: Path, size: str) -> None:
    log = filled(tmp_path, 8, size)
    entries = index_entries(log)
    entries[3] += 2  # a large log's checks sample its index: found when line 3 is read
    log.index_path.write_bytes(struct.pack(f"<{len(entries)}Q", *entries))

    fresh = JsonlLog(log.path)
    assert fresh.read_line(3) == message(3, 8, size)
    assert [i for i, _ in JsonlLog(log.path).iter_from(3)] == [3, 4, 5, 6, 7]
    assert [r["i"] for _, r in JsonlLog(log.path).iter_reverse()] == list(range(7, -1, -1))
    assert index_entries(log) == line_starts(log.path)


def test_two_instances_see_each_others_appends(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    first, second = JsonlLog(path), JsonlLog(path)

    assert first.append([{"by": "first"}]) == [0]
    assert second.count() == 1
    assert second.append([{"by": "second"}]) == [1]
    assert first.count() == 2
    assert first.read_line(1) == {"by": "second"}
    assert first.append([{"by": "first again"}]) == [2]
    assert [r["by"] for r in records(second)] == ["first", "second", "first again"]
    assert index_entries(first) == line_starts(path)


def test_reads_do_not_wait_for_a_held_lock(tmp_path: Path) -> None:
    log = filled(tmp_path, 3)
    log.index_path.unlink()  # reading now wants to repair the index, which needs the lock
    holder = (
        "import sys\nfrom pathlib import Path\n"
        "from mini_letta.storage.locks import exclusive_lock\n"
        "with exclusive_lock(Path(sys.argv[1])):\n"
        "    print('locked', flush=True)\n    sys.stdin.read()\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", holder, str(log.lock_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    ) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "locked"
            reader = JsonlLog(log.path, lock_timeout=0)  # waiting for the lock would raise
            assert reader.count() == 3
            assert reader.tail(1) == [(2, {"i": 2, "text": "message 2 ✓"})]
            assert not log.index_path.exists()  # kept in memory, not written without the lock
            with pytest.raises(LockTimeoutError, match="messages.jsonl is locked"):
                JsonlLog(log.path, lock_timeout=0.1).append([{"i": 3}])
            assert reader.count() == 3
        finally:
            child.kill()
            child.wait()


def test_unwritable_location_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")

    with pytest.raises(UnwritableError):
        JsonlLog(blocker / "m.jsonl").append([{"a": 1}])


def _ready(forker: Forker, keys: list[str]) -> None:
    while not all(("READY", key) in forker.heard for key in keys):
        forker.read()


def test_concurrent_processes_append_each_record_exactly_once(tmp_path: Path) -> None:
    path = tmp_path / "messages.jsonl"
    go = tmp_path / "go"
    names = [f"w{n}" for n in range(4)]
    forker = Forker("support.log_writers:writer", ["mini_letta.storage.jsonl"], os.environ)
    try:
        for name in names:
            job = {"path": str(path), "go": str(go), "acks": str(tmp_path / f"{name}.acks")}
            forker.start(name, job)
        _ready(forker, names)  # all started before any writes: the appends overlap
        go.touch()
        assert [forker.wait(name) for name in names] == [0, 0, 0, 0]
    finally:
        forker.close()
    acknowledged = {
        name: [
            (int(a), int(b))
            for a, b in map(str.split, (tmp_path / f"{name}.acks").read_text().splitlines())
        ]
        for name in names
    }

    log = JsonlLog(path)
    assert log.count() == 200
    everything = records(log)
    assert sorted((r["writer"], r["seq"]) for r in everything) == sorted(
        (f"w{n}", seq) for n in range(4) for seq in range(50)
    )
    for name, acks_of in acknowledged.items():
        assert [seq for _, seq in acks_of] == list(range(50))
        for index, seq in acks_of:
            assert log.read_line(index) == {"writer": name, "seq": seq}
    assert index_entries(log) == line_starts(path)


def test_sigkill_during_appends_loses_no_acknowledged_record(tmp_path: Path) -> None:
    path = tmp_path / "crash" / "messages.jsonl"
    rng = random.Random(20240506)
    acknowledged: dict[tuple[str, int], int] = {}
    forker = Forker("support.log_writers:crasher", ["mini_letta.storage.jsonl"], os.environ)
    try:
        for run in range(8):
            tag = f"run{run}"
            pad = rng.choice([10, 2_000, 40_000])  # big batches: SIGKILL mid-write likely
            acks = tmp_path / f"{tag}.acks"
            forker.start(tag, {"path": str(path), "pad": pad, "acks": str(acks)})
            _ready(forker, [tag])
            time.sleep(rng.uniform(0, 0.08))
            os.kill(forker.pids[tag], signal.SIGKILL)
            assert forker.wait(tag) == -signal.SIGKILL
            for line in acks.read_text().split("\n")[:-1]:  # a cut line: never acknowledged
                for pair in line.split():
                    at, seq = pair.split(":")
                    acknowledged[(tag, int(seq))] = int(at)

            log = JsonlLog(path)
            for key, index in acknowledged.items():
                record = log.read_line(index)
                assert record is not None
                assert (record["tag"], record["seq"]) == key
    finally:
        forker.close()

    log = JsonlLog(path)
    assert len(acknowledged) > 8
    seen: dict[str, list[int]] = {}
    for _, record in log.iter_from():
        seen.setdefault(record["tag"], []).append(record["seq"])
    for tag, seqs in seen.items():  # each run's records: a gapless prefix, in order
        assert seqs == list(range(len(seqs))), tag
    (last,) = log.append([{"tag": "after", "seq": 0}])
    assert last == log.count() - 1
    assert JsonlLog(path).read_line(last) == {"tag": "after", "seq": 0}
    assert index_entries(log) == line_starts(path)
    assert path.read_bytes().endswith(b"\n")


@SIZES
@pytest.mark.parametrize(("lines", "copies"), [(6, 2), (6, 3), (1000, 2), (1000, 7)])
def test_duplicated_index_is_rebuilt_before_any_read(
    tmp_path: Path, lines: int, copies: int, size: str
):
    """`cat idx idx > idx`: every entry fits the log, but there are too many of them."""
    log = filled(tmp_path, lines, size)
    log.index_path.write_bytes(log.index_path.read_bytes() * copies)

    assert JsonlLog(log.path).count() == lines
    last = lines - 1
    assert [(line, r["i"]) for line, r in JsonlLog(log.path).tail(2)] == [
        (last - 1, last - 1),
        (last, last),
    ]
    assert [i for i, _ in JsonlLog(log.path).iter_reverse()] == list(range(last, -1, -1))
    assert JsonlLog(log.path).append([{"i": lines}]) == [lines]
    assert index_entries(log) == line_starts(log.path)


def _loads_reference(raw: bytes) -> object:
    """What a line reads as by json.loads alone (the rule before the direct decoder call)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":1,"b":[1,2,{"c":"\\u00e9"}]}',
        b' {"a":1}',
        b'{"a":1} ',
        b'\t{"a": 1}\r',
        b'{"a":1}x',
        b'{"a":1}{"b":2}',
        b'{"a":NaN,"b":-Infinity}',
        b"[1]",
        b'"text"',
        b"",
        b"   ",
        b"\xff{}",
        b'{"a":',
        b"[" * 100_000,
        b'{"a":' * 100_000,
    ],
)
def test_a_line_reads_as_json_loads_reads_it(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(raw + b"\n")
    expected = _loads_reference(raw)
    assert JsonlLog(path).read_line(0) == expected
    assert [record for _, record in JsonlLog(path).iter_reverse()] == (
        [] if expected is None else [expected]
    )


def test_a_reverse_walk_reads_lines_longer_than_its_chunk_and_short_ones_alike(
    tmp_path: Path,
) -> None:
    sizes = [0, 5, _CHUNK - 20, 3, _CHUNK * 2 + 7, 1, 0, _CHUNK // 2, _CHUNK // 2, 9]
    log = JsonlLog(tmp_path / "mixed.jsonl")
    log.append([{"i": i, "text": "é" * size} for i, size in enumerate(sizes)])
    forward = list(JsonlLog(log.path).iter_from())
    assert [len(record["text"]) for _, record in forward] == sizes
    assert list(JsonlLog(log.path).iter_reverse()) == forward[::-1]
    assert JsonlLog(log.path).tail(3) == forward[-3:]
