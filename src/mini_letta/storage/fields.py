"""Typed reads of fields from JSON objects loaded off disk: the one set of field checks.

Each raises `ValueError` naming the camelCase key and what it must be; the record's `from_json`
turns that into a `CorruptFileError` (or a skipped log line) naming the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def require_str(data: Mapping[str, Any], key: str, *, non_empty: bool = False) -> str:
    value = data.get(key)
    if not isinstance(value, str) or (non_empty and not value):
        raise ValueError(f"{key} must be a {'non-empty ' if non_empty else ''}string")
    return value


def optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def optional_int(data: Mapping[str, Any], key: str, *, minimum: int | None = None) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key} must be an integer")
    if minimum is not None and value < minimum:
        raise ValueError(f"{key} must be at least {minimum}")
    return value


def optional_number(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"{key} must be a number")
    return float(value)


def optional_dict(data: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"{key} must be an object")
    return value


def optional_str_list(data: Mapping[str, Any], key: str) -> list[str] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{key} must be a list of strings")
    return value
