"""Reflection settings: the type, the one layering function, validation, rendering.

Effective settings = defaults ← global settings.json `reflection` ← agent.json `reflection` ←
project-local `agents.<id>.reflection`. In a layer, a missing key means "not set here" (inherit)
and `null` means "back to the default" (it overrides the layers below). A bad value in a file is
a `ConfigError` naming the file; a bad flag value is an `InvalidValueError` (exit 2). Both name
the allowed values. `reflectionMode` (where `chat -p` runs a triggered reflection: foreground
or background) is a global setting only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

from mini_letta.agents.records import AgentRecord
from mini_letta.agents.registry import update_agent
from mini_letta.errors import ConfigError, InvalidValueError, NoAgentError
from mini_letta.home import Home, project_settings_file
from mini_letta.settings import (
    SCHEMA_VERSION,
    Settings,
    load_global_settings,
    read_settings,
    update_global_settings,
    update_project_settings,
)
from mini_letta.structs import Struct

Trigger = Literal["off", "step-count", "compaction-event"]
MergeMode = Literal["auto", "explicit"]
Scope = Literal["agent", "global", "local"]
ReflectionMode = Literal["foreground", "background"]
REFLECTION_MODES: tuple[ReflectionMode, ...] = ("foreground", "background")
TRIGGERS: tuple[Trigger, ...] = ("off", "step-count", "compaction-event")
MERGE_MODES: tuple[MergeMode, ...] = ("auto", "explicit")
MemorySync = Literal["off", "after-merge"]
MEMORY_SYNC_MODES: tuple[MemorySync, ...] = ("off", "after-merge")
KEYS = (
    "trigger",
    "stepCount",
    "merge",
    "mergeInstructions",
    "memorySync",
    "model",
    "baseUrl",
    "systemBudgetPercent",
    "fileBudgetPercent",
    "reviewModel",
    "reviewBaseUrl",
    "keepRuns",
    "keepRunDays",
)


class ReflectionSettingsJson(TypedDict, total=False):
    trigger: str
    stepCount: int
    merge: str
    mergeInstructions: str
    memorySync: str
    model: str
    baseUrl: str
    systemBudgetPercent: int
    fileBudgetPercent: int
    reviewModel: str
    reviewBaseUrl: str
    keepRuns: int
    keepRunDays: int


class ReflectionSettings(Struct, frozen=True):
    trigger: Trigger = "compaction-event"
    step_count: int = 25
    merge: MergeMode = "auto"
    merge_instructions: str = ""
    memory_sync: MemorySync = "off"  # after-merge: sync memory to its remote when it changes
    model: str = ""  # the reflection model; "" = the agent's model
    base_url: str = ""  # the reflection model's server; "" = as for the agent's model
    # The memory gate's budgets: how much of the primary model's window system/ (and one file
    # in it) may take after a reflection run.
    system_budget_percent: int = 25
    file_budget_percent: int = 10
    review_model: str = ""  # a second model that reads each hunk the gate let through; "" = none
    review_base_url: str = ""
    # Run records (and their transcripts) kept: the newest `keep_runs`, none older than
    # `keep_run_days`; a run awaiting a decision and each conversation's last consumed run stay.
    keep_runs: int = 200
    keep_run_days: int = 30

    def to_json(self) -> ReflectionSettingsJson:
        return {
            "trigger": self.trigger,
            "stepCount": self.step_count,
            "merge": self.merge,
            "mergeInstructions": self.merge_instructions,
            "memorySync": self.memory_sync,
            "model": self.model,
            "baseUrl": self.base_url,
            "systemBudgetPercent": self.system_budget_percent,
            "fileBudgetPercent": self.file_budget_percent,
            "reviewModel": self.review_model,
            "reviewBaseUrl": self.review_base_url,
            "keepRuns": self.keep_runs,
            "keepRunDays": self.keep_run_days,
        }


DEFAULT_SETTINGS = ReflectionSettings()

# One layer: where it came from (for error messages) and its `reflection` object, or None.
Layer = tuple[str, Mapping[str, Any] | None]


def layer_settings(layers: Sequence[Layer]) -> ReflectionSettings:
    """Apply each layer over the defaults, lowest first; pure, raises ConfigError on bad values."""
    values: dict[str, Any] = dict(DEFAULT_SETTINGS.to_json())
    defaults = DEFAULT_SETTINGS.to_json()
    for source, layer in layers:
        if layer is None:
            continue
        for key in KEYS:
            if key not in layer:
                continue
            raw = layer[key]
            if raw is None:
                values[key] = defaults[key]  # type: ignore[literal-required]
                continue
            try:
                values[key] = validate_value(key, raw)
            except InvalidValueError as exc:
                raise ConfigError(f"{source}: reflection.{exc}") from exc
    return ReflectionSettings(
        trigger=cast(Trigger, values["trigger"]),
        step_count=int(values["stepCount"]),
        merge=cast(MergeMode, values["merge"]),
        merge_instructions=str(values["mergeInstructions"]),
        memory_sync=cast(MemorySync, values["memorySync"]),
        model=str(values["model"]),
        base_url=str(values["baseUrl"]),
        system_budget_percent=int(values["systemBudgetPercent"]),
        file_budget_percent=int(values["fileBudgetPercent"]),
        review_model=str(values["reviewModel"]),
        review_base_url=str(values["reviewBaseUrl"]),
        keep_runs=int(values["keepRuns"]),
        keep_run_days=int(values["keepRunDays"]),
    )


def layer_sources(layers: Sequence[Layer]) -> dict[str, str]:
    """Where each key's effective value comes from: the highest layer that sets it (a `null`
    there means the default), else `default`."""
    sources = dict.fromkeys(KEYS, "default")
    for source, layer in layers:
        for key in KEYS:
            if layer is not None and key in layer:
                sources[key] = "default" if layer[key] is None else source
    return sources


_CHOICES: dict[str, tuple[str, ...]] = {
    "trigger": TRIGGERS,
    "merge": MERGE_MODES,
    "memorySync": MEMORY_SYNC_MODES,
}


def validate_value(key: str, value: object) -> object:
    """One setting's value, checked (and trimmed for instructions); InvalidValueError if not."""
    choices = _CHOICES.get(key)
    if choices is not None:
        if value not in choices:
            raise InvalidValueError(
                f"{key} {value!r} is not allowed (allowed: {', '.join(choices)})"
            )
        return value
    if key in ("stepCount", "keepRuns", "keepRunDays"):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise InvalidValueError(f"{key} {value!r} is not allowed (allowed: an integer > 0)")
        return value
    if key in ("systemBudgetPercent", "fileBudgetPercent"):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 100:
            raise InvalidValueError(f"{key} {value!r} is not allowed (allowed: 1 to 100)")
        return value
    if key in ("model", "reviewModel"):
        if not isinstance(value, str):
            raise InvalidValueError(f"{key} {value!r} is not allowed (allowed: a model handle)")
        if value.strip():
            from mini_letta.errors import UnknownModelError
            from mini_letta.llm.handles import parse_handle

            try:
                parse_handle(value.strip())
            except UnknownModelError as exc:
                raise InvalidValueError(f"{key}: {exc}") from exc
        return value.strip()
    if key in ("baseUrl", "reviewBaseUrl"):
        if not isinstance(value, str):
            raise InvalidValueError(f"{key} {value!r} is not allowed (allowed: a URL)")
        return value.strip()
    if key == "mergeInstructions":
        if not isinstance(value, str):
            raise InvalidValueError(f"mergeInstructions {value!r} is not allowed (allowed: text)")
        return value.strip()
    raise KeyError(key)


def build_settings_patch(
    *,
    trigger: str | None = None,
    steps: str | None = None,
    merge: str | None = None,
    merge_instructions: str | None = None,
    memory_sync: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    review_model: str | None = None,
    review_base_url: str | None = None,
) -> dict[str, Any]:
    """The camelCase changes requested by `sleeptime` flags, validated (exit 2 when not)."""
    patch: dict[str, Any] = {}
    if trigger is not None:
        patch["trigger"] = _choice("--trigger", trigger, TRIGGERS)
    if steps is not None:
        text = steps.strip()
        if not text.isdigit() or int(text) <= 0:
            raise InvalidValueError(f"invalid --steps {steps!r} (allowed: an integer > 0)")
        patch["stepCount"] = int(text)
    if merge is not None:
        patch["merge"] = _choice("--merge", merge, MERGE_MODES)
    if merge_instructions is not None:
        patch["mergeInstructions"] = merge_instructions.strip()
    if memory_sync is not None:
        patch["memorySync"] = _choice("--memory-sync", memory_sync, MEMORY_SYNC_MODES)
    if model is not None:
        patch["model"] = validate_value("model", model)
        patch["baseUrl"] = None  # a server belongs to the model it was given with
    if base_url is not None:
        patch["baseUrl"] = base_url.strip()
    if review_model is not None:
        patch["reviewModel"] = validate_value("reviewModel", review_model)
        patch["reviewBaseUrl"] = None
    if review_base_url is not None:
        patch["reviewBaseUrl"] = review_base_url.strip()
    return patch


def _choice(flag: str, value: str, allowed: Sequence[str]) -> str:
    """`value` when it is one of `allowed`, else the usage error naming the flag and the choices."""
    if value not in allowed:
        raise InvalidValueError(f"invalid {flag} {value!r} (allowed: {', '.join(allowed)})")
    return value


def render_settings_json(settings: ReflectionSettings) -> str:
    """Compact JSON: trigger and stepCount, then each other key only where it is not the
    default."""
    data: dict[str, Any] = {"trigger": settings.trigger, "stepCount": settings.step_count}
    defaults: dict[str, Any] = dict(DEFAULT_SETTINGS.to_json())
    for key, value in settings.to_json().items():
        if key not in data and value != defaults[key]:
            data[key] = value
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


# ----- the files -----------------------------------------------------------------------------


def load_settings_layers(
    home: Home, project_dir: Path, agent: AgentRecord | None, files: Settings | None = None
) -> list[Layer]:
    """The three stored layers for `agent`, lowest first (not validated yet); without an agent
    (a project before its first chat) only the global one. `files`: the command's snapshot of
    the settings files (read here when not given)."""
    files = files or read_settings(home, project_dir)
    global_layer = _as_layer(files.global_data.get("reflection"), home.settings_file)
    if agent is None:
        return [(str(home.settings_file), global_layer)]
    local_path = project_settings_file(project_dir)
    local_layer = _as_layer(files.agent_entry(agent.id).get("reflection"), local_path)
    return [
        (str(home.settings_file), global_layer),
        (str(home.agent_file(agent.id)), agent.reflection),
        (str(local_path), local_layer),
    ]


def load_reflection_settings(
    home: Home, project_dir: Path, agent: AgentRecord | None, files: Settings | None = None
) -> ReflectionSettings:
    return layer_settings(load_settings_layers(home, project_dir, agent, files))


def is_auto_reflection_enabled(platform: str, environ: Mapping[str, str]) -> bool:
    """Automatic reflection is off on native Windows unless explicitly enabled."""
    if platform != "win32":
        return True
    return environ.get("MINI_LETTA_ENABLE_WINDOWS_AUTO_REFLECTION", "").strip() == "1"


def load_reflection_mode(home: Home, files: Settings | None = None) -> ReflectionMode:
    """Where a triggered reflection of `chat -p` runs: global settings.json `reflectionMode`."""
    data = files.global_data if files is not None else load_global_settings(home)
    value = data.get("reflectionMode")
    if value is None:
        return "foreground"
    if value not in REFLECTION_MODES:
        raise ConfigError(
            f"{home.settings_file}: reflectionMode {value!r} is not allowed "
            f"(allowed: {', '.join(REFLECTION_MODES)})"
        )
    return cast(ReflectionMode, value)


def save_reflection_settings(
    home: Home,
    project_dir: Path,
    agent: AgentRecord | None,
    patch: Mapping[str, Any],
    scope: Scope,
) -> ReflectionSettings:
    """Merge `patch` into one layer (agent.json by default) and return the effective settings.

    Without an agent only the global layer can be saved (NotFoundError otherwise)."""
    if agent is None and scope != "global":
        raise NoAgentError()
    if scope == "agent":
        assert agent is not None
        agent = update_agent(
            home,
            agent.id,
            lambda record: record.with_updates(reflection={**(record.reflection or {}), **patch}),
        )
    elif scope == "global":
        update_global_settings(home, lambda data: _merged_global(data, patch, home.settings_file))
    else:
        local_path = project_settings_file(project_dir)
        assert agent is not None
        agent_id = agent.id
        update_project_settings(
            project_dir, lambda data: _merged_local(data, agent_id, patch, local_path)
        )
    return load_reflection_settings(home, project_dir, agent)


def _merged_global(data: dict[str, Any], patch: Mapping[str, Any], path: Path) -> dict[str, Any]:
    current = _as_layer(data.get("reflection"), path) or {}
    return {**data, "schemaVersion": SCHEMA_VERSION, "reflection": {**current, **patch}}


def _merged_local(
    data: dict[str, Any], agent_id: str, patch: Mapping[str, Any], path: Path
) -> dict[str, Any]:
    agents = dict(data.get("agents", {}))
    entry = dict(agents.get(agent_id, {}))
    entry["reflection"] = {**(_as_layer(entry.get("reflection"), path) or {}), **patch}
    agents[agent_id] = entry
    return {**data, "schemaVersion": SCHEMA_VERSION, "agents": agents}


def _as_layer(value: object, path: Path) -> Mapping[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(f'{path}: reflection must be an object like {{"trigger": "off"}}')
    return value
