"""Real hook scripts for tests: shell files in tmp_path, and the settings that name them."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any


def hook_script(folder: Path, name: str, body: str) -> Path:
    """An executable `sh` script `name` in `folder` running `body`."""
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def hook_entry(command: Path | str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": str(command), **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def write_hooks(settings_file: Path, hooks: dict[str, list[dict[str, Any]]]) -> None:
    """Set `hooks` in a settings file, keeping what else it holds."""
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(settings_file.read_text()) if settings_file.exists() else {}
    settings_file.write_text(json.dumps({**data, "hooks": hooks}), encoding="utf-8")


def seen(path: Path) -> list[dict[str, Any]]:
    """The JSON objects a recording hook appended to `path`, one per line."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def recorder(folder: Path, name: str, record: Path, then: str = "exit 0") -> Path:
    """A hook that appends its stdin (one JSON object) as a line to `record`, then `then`."""
    return hook_script(folder, name, f'(cat; echo) >> "{record}"\n{then}')
