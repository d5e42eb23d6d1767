"""agent.json: who an agent is and how it talks to its model.

One `to_json`/`from_json` pair converts between the snake_case record and the camelCase file.
Unknown keys survive a round trip (`extra`), so a newer field is never dropped by an older
writer. A malformed file is a `CorruptFileError` naming it; it is never reset to defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mini_letta.errors import CorruptFileError

SCHEMA_VERSION = 1

_FIELDS = {
    "schemaVersion",
    "id",
    "name",
    "model",
    "contextWindow",
    "system",
    "reflection",
    "tools",
    "baseUrl",
    "maxOutputTokens",
    "temperature",
    "createdAt",
}


@dataclass(frozen=True, slots=True)
class AgentRecord:
    id: str
    name: str
    model: str
    system: str
    created_at: str
    context_window: int | None = None
    reflection: dict[str, Any] | None = None
    tools: tuple[str, ...] | None = None
    base_url: str | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def with_updates(self, **changes: Any) -> AgentRecord:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            **self.extra,
            "schemaVersion": SCHEMA_VERSION,
            "id": self.id,
            "name": self.name,
            "model": self.model,
            "contextWindow": self.context_window,
            "system": self.system,
            "createdAt": self.created_at,
        }
        optional = {
            "reflection": self.reflection,
            "tools": list(self.tools) if self.tools is not None else None,
            "baseUrl": self.base_url,
            "maxOutputTokens": self.max_output_tokens,
            "temperature": self.temperature,
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], path: Path) -> AgentRecord:
        try:
            return cls(
                id=_req_str(data, "id"),
                name=_req_str(data, "name"),
                model=_req_str(data, "model"),
                system=str(data.get("system") or ""),
                created_at=_req_str(data, "createdAt"),
                context_window=_opt_positive_int(data, "contextWindow"),
                reflection=_opt_dict(data, "reflection"),
                tools=_opt_str_tuple(data, "tools"),
                base_url=_opt_str(data, "baseUrl"),
                max_output_tokens=_opt_positive_int(data, "maxOutputTokens"),
                temperature=_opt_number(data, "temperature"),
                extra={k: v for k, v in data.items() if k not in _FIELDS},
            )
        except ValueError as exc:
            raise CorruptFileError(path, str(exc), "fix the field or restore the file") from exc


def _req_str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{key} must be a non-empty string")
    return value


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _opt_positive_int(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{key} must be a positive integer")
    return value


def _opt_number(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"{key} must be a number")
    return float(value)


def _opt_dict(data: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"{key} must be an object")
    return value


def _opt_str_tuple(data: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{key} must be a list of strings")
    return tuple(value)
