"""Atomic JSON documents: round trips, corruption reports and failure cleanup on real files."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from mini_letta.errors import CorruptFileError, StorageError, UnwritableError
from mini_letta.storage.atomic import load_json, quarantine_file, save_json


def test_round_trip_keeps_unicode_and_is_pretty(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    data = {"name": "Zoë 🦙", "nested": {"list": [1, 2.5, None, True]}, "empty": {}}

    save_json(path, data)

    assert load_json(path) == data
    text = path.read_text(encoding="utf-8")
    assert "Zoë 🦙" in text  # ensure_ascii=False
    assert text == json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def test_save_creates_parent_folders_and_leaves_only_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "settings.json"

    save_json(path, {"x": 1})
    save_json(path, {"x": 2})

    assert load_json(path) == {"x": 2}
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_save_keeps_the_permissions_of_the_replaced_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.json"
    save_json(path, {"v": 1})
    path.chmod(0o600)

    save_json(path, {"v": 2})

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_json(path) == {"v": 2}


def test_missing_file_loads_as_none(tmp_path: Path) -> None:
    assert load_json(tmp_path / "nope.json") is None


def test_invalid_json_is_reported_with_path_and_position_and_left_in_place(
    tmp_path: Path,
) -> None:
    path = tmp_path / "agent.json"
    raw = b'{\n  "a": 1,\n    oops\n}\n'
    path.write_bytes(raw)

    with pytest.raises(CorruptFileError) as caught:
        load_json(path)

    assert str(path) in str(caught.value)
    assert caught.value.path == path
    assert caught.value.detail == "invalid JSON at line 3 column 5"
    assert path.read_bytes() == raw


@pytest.mark.parametrize(
    ("content", "kind"),
    [(b"[1, 2]", "a list"), (b'"text"', "a string"), (b"3", "a number"), (b"null", "null")],
)
def test_top_level_must_be_an_object(tmp_path: Path, content: bytes, kind: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)

    with pytest.raises(CorruptFileError) as caught:
        load_json(path)

    assert caught.value.detail == f"top level is {kind}, expected an object"
    assert path.read_bytes() == content


def test_invalid_utf8_and_empty_files_are_corrupt(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"a": "\xff"}')
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")

    with pytest.raises(CorruptFileError, match="not valid UTF-8 at byte 7"):
        load_json(bad)
    with pytest.raises(CorruptFileError, match="empty"):
        load_json(empty)


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + '{"k": "välue"}'.encode())

    assert load_json(path) == {"k": "välue"}


def test_unreadable_path_is_a_storage_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "folder.json"
    path.mkdir()  # reading a folder fails even as root, unlike chmod 000

    with pytest.raises(StorageError) as caught:
        load_json(path)

    assert not isinstance(caught.value, CorruptFileError)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unwritable_parent_raises_and_leaves_no_temp_file(tmp_path: Path) -> None:
    blocker = tmp_path / "home"
    blocker.write_text("a regular file where a folder should be")
    path = blocker / "agent.json"

    with pytest.raises(UnwritableError) as caught:
        save_json(path, {"x": 1})

    assert caught.value.path == path
    assert [p.name for p in tmp_path.iterdir()] == ["home"]


def test_failed_replace_removes_the_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    path.mkdir()
    (path / "inside").write_text("keeps the folder non-empty")

    with pytest.raises(UnwritableError):
        save_json(path, {"x": 1})

    assert [p.name for p in tmp_path.iterdir()] == ["agent.json"]
    assert path.is_dir()


def test_unserialisable_data_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    save_json(path, {"old": True})

    with pytest.raises(TypeError):
        save_json(path, {"bad": object()})

    assert load_json(path) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["agent.json"]


def test_quarantine_renames_with_timestamp_and_counts_collisions(tmp_path: Path) -> None:
    now = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
    moved = []
    for content in (b"first", b"second", b"third"):
        path = tmp_path / "agent.json"
        path.write_bytes(content)
        moved.append(quarantine_file(path, now))
        assert not path.exists()

    assert [p.name for p in moved] == [
        "agent.json.corrupt-20240506070809",
        "agent.json.corrupt-20240506070809-2",
        "agent.json.corrupt-20240506070809-3",
    ]
    assert [p.read_bytes() for p in moved] == [b"first", b"second", b"third"]


def test_quarantine_stamps_aware_times_in_utc(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(b"{")
    plus_two = timezone(timedelta(hours=2))

    moved = quarantine_file(path, datetime(2024, 1, 1, 1, 0, 0, tzinfo=plus_two))

    assert moved.name == "m.json.corrupt-20231231230000"


def test_quarantine_of_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(UnwritableError):
        quarantine_file(tmp_path / "gone.json", datetime(2024, 1, 1, tzinfo=UTC))
    assert os.listdir(tmp_path) == []
