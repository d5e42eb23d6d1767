"""`agents/<id>/doctor.json`: the count of the last `memory doctor`, for `status`.

`status` must stay cheap and never load the secret scanner, so it shows this count rather than
running the doctor; the record says which memory commit it describes, so a stale count is
shown as stale. Small and derived: a corrupt or missing file is simply no count.
"""

from __future__ import annotations

from typing import Any

from mini_letta.errors import CorruptFileError, StorageError
from mini_letta.home import Home
from mini_letta.storage.atomic import load_json, save_json
from mini_letta.structs import Struct

SCHEMA_VERSION = 1


class DoctorCount(Struct, frozen=True):
    head: str | None  # the memory commit the doctor looked at
    clean: bool  # and whether the working tree had no uncommitted change then
    checked_at: str
    counts: dict[str, int]  # severity -> findings

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "head": self.head,
            "clean": self.clean,
            "checkedAt": self.checked_at,
            "counts": self.counts,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DoctorCount | None:
        counts = data.get("counts")
        if data.get("schemaVersion") != SCHEMA_VERSION or not isinstance(counts, dict):
            return None
        head = data.get("head")
        return cls(
            head if isinstance(head, str) else None,
            data.get("clean") is True,
            str(data.get("checkedAt") or ""),
            {
                str(k): v
                for k, v in counts.items()
                if isinstance(v, int) and not isinstance(v, bool)
            },
        )


def save_doctor_count(home: Home, agent_id: str, count: DoctorCount) -> None:
    save_json(home.doctor_file(agent_id), count.to_json())


def load_doctor_count(home: Home, agent_id: str) -> DoctorCount | None:
    try:
        data = load_json(home.doctor_file(agent_id))
    except (CorruptFileError, StorageError):
        return None
    return DoctorCount.from_json(data) if data is not None else None
