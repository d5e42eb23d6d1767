"""Global settings (settings.json) and project-local ones (.mini-letta/settings.local.json).

Both are plain JSON objects read and written whole; updates are read-modify-write under a lock
so two processes never lose each other's change. Project-local settings remember, per project,
the last agent used and each agent's current conversation, plus per-agent overrides:

    {"schemaVersion": 1, "lastAgentId": "agent-…",
     "agents": {"agent-…": {"conversationId": "conv-…", "reflection": {...}}}}
"""

from __future__ import annotations

import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from mini_letta.errors import CorruptFileError, StorageError
from mini_letta.home import (
    Home,
    ensure_dir,
    lock_file_for,
    project_folder,
    project_gitignore_file,
    project_mcp_file,
    project_mcp_lock,
    project_settings_file,
    project_shared_settings_file,
)
from mini_letta.storage.atomic import load_json, save_bytes, save_json
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct, field

SCHEMA_VERSION = 1
DEFAULT_MODEL = "mock"
MCP_FILE_CAP = 1_000_000  # a .mcp.json is a few hundred bytes; a larger one is not read
McpScope = Literal["project", "user"]


class Setting(Struct, frozen=True):
    """One effective value and where it came from: `default`, an environment variable
    (`$MINI_LETTA_MODEL`) or the file that set it."""

    key: str
    value: object
    source: str


class McpServerEntry(Struct, frozen=True):
    """One `mcpServers` entry as written (checked by mcp_client/config.py) and where it came
    from: `project` (the project's .mcp.json) or `user` (settings.json)."""

    name: str
    entry: object
    scope: McpScope
    source: Path


HookScope = Literal["user", "project", "local"]


class HookLayer(Struct, frozen=True):
    """One settings file's `hooks` object, unparsed (hooks/config.py owns its shape), and
    which file it came from: hooks of every file run, user's first."""

    scope: HookScope
    file: Path
    hooks: object


class Settings(Struct, frozen=True):
    """settings.json and this project's settings.local.json as a command read them, once.

    Values are checked when asked for (a bad one is a CorruptFileError naming the file), so
    a command that never asks for a value never fails on it. Writers (`remember_current`,
    `update_*_settings`) read the file again under its lock; a command reads a new snapshot
    when it needs to see its own writes."""

    global_file: Path
    local_file: Path
    global_data: Mapping[str, Any]
    local_data: Mapping[str, Any]
    mcp_file: Path | None = None  # the project's .mcp.json
    mcp_data: Mapping[str, Any] | None = None  # None: no such file, or an unreadable one
    mcp_problem: str | None = None  # why .mcp.json could not be read
    project_file: Path | None = None  # the project's shared settings.json (its hooks)
    project_data: Mapping[str, Any] = field(default_factory=dict)

    def mcp_servers(self) -> tuple[list[McpServerEntry], list[str]]:
        """The `mcpServers` entries of .mcp.json, then of settings.json (a project entry hides
        a user one of the same name, as in Claude Code), and each problem as one line."""
        problems = [self.mcp_problem] if self.mcp_problem else []
        entries: list[McpServerEntry] = []
        sources: list[tuple[McpScope, Path, Mapping[str, Any] | None]] = [
            ("user", self.global_file, self.global_data)
        ]
        if self.mcp_file is not None:
            sources.insert(0, ("project", self.mcp_file, self.mcp_data))
        for scope, path, data in sources:
            servers = (data or {}).get("mcpServers", {})
            if not isinstance(servers, dict):
                problems.append(f"{path}: mcpServers must be an object")
                continue
            taken = {entry.name for entry in entries}
            entries += [
                McpServerEntry(str(name), entry, scope, path)
                for name, entry in servers.items()
                if name not in taken
            ]
        return entries, problems

    def mcp_approvals(self) -> Mapping[str, str]:
        """`mcpApproved`: each project server's fingerprint as this machine approved it."""
        value = self.local_data.get("mcpApproved", {})
        return (
            {k: v for k, v in value.items() if isinstance(v, str)}
            if isinstance(value, dict)
            else {}
        )

    def hook_layers(self) -> tuple[HookLayer, ...]:
        """The `hooks` of the user's, the project's and the project-local settings, in that
        order; empty when none has any (the usual case: nothing of hooks/ is imported)."""
        files = (
            ("user", self.global_file, self.global_data),
            ("project", self.project_file, self.project_data),
            ("local", self.local_file, self.local_data),
        )
        return tuple(
            HookLayer(scope, path, data["hooks"])  # type: ignore[arg-type]
            for scope, path, data in files
            if path is not None and "hooks" in data
        )

    def default_model(self, environ: Mapping[str, str]) -> str:
        """The model for a new agent: MINI_LETTA_MODEL, else `defaultModel`, else mock."""
        return self._default_model(environ)[0]

    def _default_model(self, environ: Mapping[str, str]) -> tuple[str, str]:
        configured = environ.get("MINI_LETTA_MODEL", "").strip()
        if configured:
            return configured, "$MINI_LETTA_MODEL"
        value = self.global_data.get("defaultModel")
        if value is not None and not isinstance(value, str):
            raise CorruptFileError(self.global_file, "defaultModel must be a string")
        return (value, str(self.global_file)) if value else (DEFAULT_MODEL, "default")

    def bash_env_allow(self) -> frozenset[str]:
        """`bashEnvAllow`: credential variables the Bash tool may still see."""
        value = self.global_data.get("bashEnvAllow", [])
        if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
            raise CorruptFileError(
                self.global_file, "bashEnvAllow must be a list of environment variable names"
            )
        return frozenset(value)

    def current_agent_id(self) -> str | None:
        """The agent this project used last, or None (a fresh project, or a blank entry)."""
        return self._optional_id(self.local_data, "lastAgentId")

    def current_conversation_id(self, agent_id: str) -> str | None:
        """The agent's current conversation in this project, or None when it has none yet."""
        return self._optional_id(self.agent_entry(agent_id), "conversationId")

    def agent_entry(self, agent_id: str) -> dict[str, Any]:
        """The project's entry for one agent (its conversation, its reflection overrides)."""
        return dict(self.local_data.get("agents", {}).get(agent_id, {}))

    def used_agent_ids(self) -> list[str]:
        """Every agent this project has used, in the order it first used them."""
        return [agent_id for agent_id in self.local_data.get("agents", {}) if agent_id]

    def origins(self, environ: Mapping[str, str]) -> list[Setting]:
        """The command-wide settings with their sources (reflection's are in its own module)."""
        allow = self.bash_env_allow()
        last = self.current_agent_id()
        return [
            Setting("defaultModel", *self._default_model(environ)),
            Setting(
                "bashEnvAllow",
                sorted(allow),
                str(self.global_file) if "bashEnvAllow" in self.global_data else "default",
            ),
            Setting("lastAgentId", last, "default" if last is None else str(self.local_file)),
            *(  # the events each file hooks (`hooks list` shows the commands)
                Setting(
                    "hooks",
                    sorted(map(str, layer.hooks)) if isinstance(layer.hooks, dict) else layer.hooks,
                    str(layer.file),
                )
                for layer in self.hook_layers()
            ),
        ]

    def _optional_id(self, data: Mapping[str, Any], key: str) -> str | None:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise CorruptFileError(self.local_file, f"{key} must be a string")
        return value or None


def read_settings(home: Home, project_dir: Path) -> Settings:
    """Both settings files, each read once (a missing file is an empty one)."""
    local_file = project_settings_file(project_dir)
    mcp_file = project_mcp_file(project_dir)
    mcp_data, mcp_problem = _read_mcp_file(mcp_file)
    shared_file: Path | None = project_shared_settings_file(project_dir)
    if shared_file is not None and _same_file(shared_file, home.settings_file):
        shared_file = None  # the project is the home folder's parent: one file, read once
    return Settings(
        global_file=home.settings_file,
        local_file=local_file,
        global_data=load_global_settings(home),
        local_data=_checked_project(load_json(local_file) or {}, local_file),
        mcp_file=mcp_file,
        mcp_data=mcp_data,
        mcp_problem=mcp_problem,
        project_file=shared_file,
        project_data=(load_json(shared_file) or {}) if shared_file is not None else {},
    )


def _read_mcp_file(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The project's .mcp.json (it belongs to the project, shared with other tools): a bad one
    is a problem to report, never a reason for a command to fail, and never moved aside."""
    try:
        info = path.stat()
    except OSError:
        return None, None
    if not stat.S_ISREG(info.st_mode):
        return None, f"{path} is not a regular file"
    if info.st_size > MCP_FILE_CAP:
        return None, f"{path} is larger than {MCP_FILE_CAP:,} bytes"
    try:
        return load_json(path), None
    except StorageError as exc:
        return None, str(exc)


def update_project_mcp(
    project_dir: Path, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """Read-modify-write the project's .mcp.json (atomically, under a lock in .mini-letta/)."""
    ensure_project_folder(project_dir)
    return _update(project_mcp_file(project_dir), change, lock=project_mcp_lock(project_dir))


def _same_file(one: Path, other: Path) -> bool:
    """Whether two paths are one file, asked of the files (two stats) rather than by resolving
    both paths (a Python walk of every folder above each); a missing file is no other's."""
    if one.absolute() == other.absolute():
        return True
    try:
        return one.samefile(other)
    except OSError:
        return False


def load_global_settings(home: Home) -> dict[str, Any]:
    return load_json(home.settings_file) or {}


def update_global_settings(
    home: Home, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    return _update(home.settings_file, change)


def _checked_project(data: dict[str, Any], path: Path) -> dict[str, Any]:
    agents = data.get("agents", {})
    if not isinstance(agents, dict) or not all(isinstance(v, dict) for v in agents.values()):
        raise CorruptFileError(path, "agents must be an object of objects")
    return data


def update_project_settings(
    project_dir: Path, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    path = project_settings_file(project_dir)

    def checked(data: dict[str, Any]) -> dict[str, Any]:
        return change(_checked_project(data, path))  # the shape is checked before a change

    ensure_project_folder(project_dir)
    return _update(path, checked)


def ensure_project_folder(project_dir: Path) -> None:
    """Make the project's `.mini-letta/`, with its own `.gitignore` (`*`) when it is new: the
    folder holds this machine's choices and is never meant to be committed."""
    folder = project_folder(project_dir)
    if folder.is_dir():
        return
    ensure_dir(folder)
    save_bytes(project_gitignore_file(project_dir), b"*\n")


class ModelChoice(Struct, frozen=True):
    """A new agent's model: `reason` says why when it was picked rather than configured."""

    handle: str
    reason: str | None = None


# A key in the environment picks its provider for new agents, in this order.
_KEYED_MODELS = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-5-5"),
    ("OPENAI_API_KEY", "openai/gpt-4o"),
)
OLLAMA_MODEL = "ollama/llama3.2"


def new_agent_model(settings: Settings, environ: Mapping[str, str]) -> ModelChoice:
    """The configured default model, else a real provider whose key (or OLLAMA_HOST) is in
    `environ`, else the offline mock."""
    handle = settings.default_model(environ)
    configured = environ.get("MINI_LETTA_MODEL", "").strip()
    if configured or settings.global_data.get("defaultModel") is not None:
        return ModelChoice(handle)
    for key, keyed in _KEYED_MODELS:
        if environ.get(key, "").strip():
            return ModelChoice(keyed, reason=f"{key} is set")
    host = environ.get("OLLAMA_HOST", "").strip()
    if host:  # the ollama provider finds the server through OLLAMA_HOST itself
        return ModelChoice(OLLAMA_MODEL, reason=f"OLLAMA_HOST is {host}")
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


def remember_current(project_dir: Path, agent_id: str, conversation_id: str) -> None:
    """Make this agent and conversation the project's current ones."""

    def change(data: dict[str, Any]) -> dict[str, Any]:
        agents = dict(data.get("agents", {}))
        entry = dict(agents.get(agent_id, {}))
        entry["conversationId"] = conversation_id
        agents[agent_id] = entry
        return {**data, "schemaVersion": SCHEMA_VERSION, "lastAgentId": agent_id, "agents": agents}

    update_project_settings(project_dir, change)


def _update(
    path: Path, change: Callable[[dict[str, Any]], dict[str, Any]], lock: Path | None = None
) -> dict[str, Any]:
    with exclusive_lock(lock or lock_file_for(path), what=str(path)):
        current = load_json(path)
        updated = change(current or {})
        if updated != current:  # most turns re-remember what is already there
            save_json(path, updated)
        return updated
