"""agent.json: who an agent is and how it talks to its model.

One `to_json`/`from_json` pair converts between the snake_case record and the camelCase file.
Unknown keys survive a round trip (`extra`), so a newer field is never dropped by an older
writer. A malformed file is a `CorruptFileError` naming it; it is never reset to defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from mini_letta.errors import CorruptFileError
from mini_letta.storage.fields import (
    optional_dict,
    optional_int,
    optional_number,
    optional_str,
    optional_str_list,
    require_str,
)
from mini_letta.structs import Struct, field, replace

SCHEMA_VERSION = 1
CacheTtl = Literal["5m", "1h"]
CACHE_TTLS: tuple[CacheTtl, ...] = ("5m", "1h")

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
    "promptCacheTtl",
    "createdAt",
}


class AgentRecord(Struct, frozen=True):
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
    prompt_cache_ttl: CacheTtl | None = None  # Anthropic prompt cache lifetime (None: 5m)
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
            "promptCacheTtl": self.prompt_cache_ttl,
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], path: Path) -> AgentRecord:
        try:
            return cls(
                id=require_str(data, "id", non_empty=True),
                name=require_str(data, "name", non_empty=True),
                model=require_str(data, "model", non_empty=True),
                system=str(data.get("system") or ""),
                created_at=require_str(data, "createdAt", non_empty=True),
                context_window=optional_int(data, "contextWindow", minimum=1),
                reflection=optional_dict(data, "reflection"),
                tools=_tuple_or_none(optional_str_list(data, "tools")),
                base_url=optional_str(data, "baseUrl"),
                max_output_tokens=optional_int(data, "maxOutputTokens", minimum=1),
                temperature=optional_number(data, "temperature"),
                prompt_cache_ttl=_cache_ttl(optional_str(data, "promptCacheTtl")),
                extra={k: v for k, v in data.items() if k not in _FIELDS},
            )
        except ValueError as exc:
            raise CorruptFileError(path, str(exc), "fix the field or restore the file") from exc


def _cache_ttl(value: str | None) -> CacheTtl | None:
    if value is not None and value not in CACHE_TTLS:
        raise ValueError(f"promptCacheTtl must be one of {', '.join(CACHE_TTLS)}")
    return value


def _tuple_or_none(items: list[str] | None) -> tuple[str, ...] | None:
    return None if items is None else tuple(items)
