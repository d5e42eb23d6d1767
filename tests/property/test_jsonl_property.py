"""Property: a log whose last line is cut anywhere reads as the records before it, and heals."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mini_letta.storage.jsonl import JsonlLog

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
one_record = st.dictionaries(st.text(max_size=6), values, max_size=4)
record_lists = st.lists(one_record, min_size=1, max_size=8)


def read_everything(log: JsonlLog) -> list[dict[str, Any]]:
    forward = [record for _, record in log.iter_from()]
    assert [i for i, _ in log.iter_from()] == list(range(len(forward)))
    assert [record for _, record in log.iter_reverse()] == forward[::-1]
    assert [record for _, record in log.tail(len(forward) + 1)] == forward
    assert [log.read_line(i) for i in range(log.count())] == forward
    assert log.count() == len(forward)
    return forward


# Each example fsyncs up to ten appends: fewer of them than the profile's default.
@settings(max_examples=25)
@given(records=record_lists, one_batch=st.booleans(), cut=st.data(), new=one_record)
def test_cut_last_line_reads_as_the_complete_records_and_heals(
    records: list[dict[str, Any]], one_batch: bool, cut: st.DataObject, new: dict[str, Any]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "messages.jsonl"
        writer = JsonlLog(path)
        if one_batch:
            writer.append(records)
        else:
            for record in records:
                writer.append([record])
        assert read_everything(writer) == records

        data = path.read_bytes()
        last_start = data.rfind(b"\n", 0, len(data) - 1) + 1
        size = cut.draw(st.integers(min_value=last_start, max_value=len(data) - 1), label="size")
        with path.open("r+b") as f:
            f.truncate(size)

        assert read_everything(JsonlLog(path)) == records[:-1]
        assert read_everything(writer) == records[:-1]  # a cached view notices the shrink

        assert writer.append([new]) == [len(records) - 1]
        assert read_everything(JsonlLog(path)) == [*records[:-1], new]
        assert read_everything(writer) == [*records[:-1], new]
        healed = path.read_bytes()
        ends = [i + 1 for i, byte in enumerate(healed) if byte == 0x0A]
        index = writer.index_path.read_bytes()
        assert list(struct.unpack(f"<{len(index) // 8}Q", index)) == [0, *ends[:-1]]
        assert healed.endswith(b"\n")
