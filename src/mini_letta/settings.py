"""Global settings (settings.json) and project-local ones (.mini-letta/settings.local.json).

Both are plain JSON objects read and written whole; updates are read-modify-write under a lock
so two processes never lose each other's change. Project-local settings remember, per project,
the last agent used and each agent's current conversation, plus per-agent overrides:

    {"schemaVersion": 1, "lastAgentId": "agent-…",
     "agents": {"agent-…": {"conversationId": "conv-…", "reflection": {...}}}}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mini_letta.errors import CorruptFileError
from mini_letta.home import (
    Home,
    ensure_dir,
    lock_file_for,
    project_folder,
    project_gitignore_file,
    project_settings_file,
)
from mini_letta.storage.atomic import load_json, save_bytes, save_json
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct

SCHEMA_VERSION = 1
DEFAULT_MODEL = "mock"


def load_global_settings(home: Home) -> dict[str, Any]:
    return load_json(home.settings_file) or {}


def update_global_settings(
    home: Home, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    return _update(home.settings_file, change)


def default_model(home: Home, environ: Mapping[str, str]) -> str:
    """The model for a new agent: MINI_LETTA_MODEL, else settings.json defaultModel, else mock."""
    configured = environ.get("MINI_LETTA_MODEL", "").strip()
    if configured:
        return configured
    value = load_global_settings(home).get("defaultModel")
    if value is not None and not isinstance(value, str):
        raise CorruptFileError(home.settings_file, "defaultModel must be a string")
    return value or DEFAULT_MODEL


class ModelChoice(Struct, frozen=True):
    """A new agent's model: `reason` says why when it was picked rather than configured."""

    handle: str
    base_url: str | None = None
    reason: str | None = None


# A key in the environment picks its provider for new agents, in this order.
_KEYED_MODELS = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-4o"),
)
OLLAMA_MODEL = "ollama/llama3.2"


def new_agent_model(home: Home, environ: Mapping[str, str]) -> ModelChoice:
    """The configured default model, else a real provider whose key (or OLLAMA_HOST) is in
    `environ`, else the offline mock."""
    configured = environ.get("MINI_LETTA_MODEL", "").strip()
    if configured or load_global_settings(home).get("defaultModel") is not None:
        return ModelChoice(default_model(home, environ))
    for key, handle in _KEYED_MODELS:
        if environ.get(key, "").strip():
            return ModelChoice(handle, reason=f"{key} is set")
    host = environ.get("OLLAMA_HOST", "").strip()
    if host:
        url = host if "://" in host else f"http://{host}"
        return ModelChoice(OLLAMA_MODEL, base_url=url, reason=f"OLLAMA_HOST is {host}")
    return ModelChoice(DEFAULT_MODEL, reason="no model key is set")


def first_mock_agent(home: Home) -> bool:
    """True once per home: the first agent that fell back to the mock (then recorded)."""
    first = False

    def mark(data: dict[str, Any]) -> dict[str, Any]:
        nonlocal first
        first = not data.get("mockHintShown")
        return {**data, "mockHintShown": True}

    update_global_settings(home, mark)
    return first


def bash_env_allow(home: Home) -> frozenset[str]:
    """settings.json `bashEnvAllow`: credential variables the Bash tool may still see."""
    value = load_global_settings(home).get("bashEnvAllow", [])
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise CorruptFileError(
            home.settings_file, "bashEnvAllow must be a list of environment variable names"
        )
    return frozenset(value)


def load_project_settings(project_dir: Path) -> dict[str, Any]:
    data = load_json(project_settings_file(project_dir)) or {}
    agents = data.get("agents", {})
    if not isinstance(agents, dict) or not all(isinstance(v, dict) for v in agents.values()):
        raise CorruptFileError(
            project_settings_file(project_dir), "agents must be an object of objects"
        )
    return data


def update_project_settings(
    project_dir: Path, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    def checked(data: dict[str, Any]) -> dict[str, Any]:
        load_project_settings(project_dir)  # validate the shape before changing it
        return change(data)

    ensure_project_folder(project_dir)
    return _update(project_settings_file(project_dir), checked)


def ensure_project_folder(project_dir: Path) -> None:
    """Make the project's `.mini-letta/`, with its own `.gitignore` (`*`) when it is new: the
    folder holds this machine's choices and is never meant to be committed."""
    folder = project_folder(project_dir)
    if folder.is_dir():
        return
    ensure_dir(folder)
    save_bytes(project_gitignore_file(project_dir), b"*\n")


def project_agent_settings(project: Mapping[str, Any], agent_id: str) -> dict[str, Any]:
    entry = project.get("agents", {}).get(agent_id, {})
    return dict(entry)


def current_agent_id(project_dir: Path) -> str | None:
    """The agent this project used last, or None (a fresh project, or a blank entry)."""
    return _optional_id(load_project_settings(project_dir), "lastAgentId", project_dir)


def current_conversation_id(project_dir: Path, agent_id: str) -> str | None:
    """The agent's current conversation in this project, or None when it has none yet."""
    entry = project_agent_settings(load_project_settings(project_dir), agent_id)
    return _optional_id(entry, "conversationId", project_dir)


def _optional_id(data: Mapping[str, Any], key: str, project_dir: Path) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise CorruptFileError(project_settings_file(project_dir), f"{key} must be a string")
    return value or None


def remember_current(project_dir: Path, agent_id: str, conversation_id: str) -> None:
    """Make this agent and conversation the project's current ones."""

    def change(data: dict[str, Any]) -> dict[str, Any]:
        agents = dict(data.get("agents", {}))
        entry = dict(agents.get(agent_id, {}))
        entry["conversationId"] = conversation_id
        agents[agent_id] = entry
        return {**data, "schemaVersion": SCHEMA_VERSION, "lastAgentId": agent_id, "agents": agents}

    update_project_settings(project_dir, change)


def _update(path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    with exclusive_lock(lock_file_for(path), what=str(path)):
        current = load_json(path)
        updated = change(current or {})
        if updated != current:  # most turns re-remember what is already there
            save_json(path, updated)
        return updated
