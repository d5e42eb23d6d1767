"""Typed reads of fields from JSON objects: the one set of field checks.

They read records loaded off disk and the arguments of a tool call alike. Each raises
`FieldError` (a `ValueError`) naming the key and what it must be: a record's `from_json` turns
that into a `CorruptFileError` (or a skipped log line) naming the file, and the tool runner
into a `ToolInputError` result the model reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FieldError(ValueError):
    """A field is missing or is not what its record or tool takes."""


def require_str(data: Mapping[str, Any], key: str, *, non_empty: bool = False) -> str:
    value = data.get(key)
    if value is None:
        raise FieldError(f"{key} is required")
    if not isinstance(value, str):
        raise FieldError(f"{key} must be a string")
    if non_empty and not value:
        raise FieldError(f"{key} must not be empty")
    return value


def require_int(data: Mapping[str, Any], key: str, *, minimum: int | None = None) -> int:
    value = optional_int(data, key, minimum=minimum)
    if value is None:
        raise FieldError(f"{key} must be an integer")
    return value


def optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise FieldError(f"{key} must be a string")
    return value


def optional_int(data: Mapping[str, Any], key: str, *, minimum: int | None = None) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise FieldError(f"{key} must be an integer")
    if minimum is not None and value < minimum:
        raise FieldError(f"{key} must be at least {minimum}")
    return value


def optional_number(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise FieldError(f"{key} must be a number")
    return float(value)


def optional_dict(data: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise FieldError(f"{key} must be an object")
    return value


def optional_str_list(data: Mapping[str, Any], key: str) -> list[str] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise FieldError(f"{key} must be a list of strings")
    return value
