"""The home folder and every path inside it.

`Home` is resolved once from the environment (`MINI_LETTA_HOME`, else `~/.mini-letta`) and owns
all path joins, so the on-disk layout of SPEC §2 lives in this one file. It never creates folders:
creation is explicit (`ensure_dir`), so `--help` or `--version` leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mini_letta.errors import UnwritableError

PROJECT_DIR_NAME = ".mini-letta"


@dataclass(frozen=True, slots=True)
class Home:
    root: Path

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Home:
        configured = environ.get("MINI_LETTA_HOME", "").strip()
        if configured:
            return cls(Path(configured).expanduser().absolute())
        return cls(Path(environ.get("HOME", str(Path.home()))) / PROJECT_DIR_NAME)

    @property
    def settings_file(self) -> Path:
        return self.root / "settings.json"

    @property
    def agents_dir(self) -> Path:
        return self.root / "agents"

    def agent_dir(self, agent_id: str) -> Path:
        return self.agents_dir / agent_id

    def agent_file(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "agent.json"

    def agent_lock(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "agent.lock"

    def memory_dir(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "memory"

    def memory_lock(self, agent_id: str) -> Path:
        """Held while a memory edit is written and committed (`memory` tool, `memory edit`)."""
        return self.agent_dir(agent_id) / "memory.lock"

    def prompt_cache_file(self, agent_id: str) -> Path:
        """The compiled memory section, keyed by the memory repo's HEAD sha."""
        return self.agent_dir(agent_id) / "prompt-cache.json"

    def search_index_file(self, agent_id: str) -> Path:
        """The agent's recall index (SQLite FTS5): derived, rebuilt whenever it is in doubt."""
        return self.agent_dir(agent_id) / "search-index.sqlite"

    def import_staging_dir(self, agent_id: str) -> Path:
        """Where an imported transcript is written before it is renamed into conversations/."""
        return self.agent_dir(agent_id) / "import-staging"

    def memory_worktrees_dir(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "memory-worktrees"

    def reflections_dir(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "reflections"

    def conversations_dir(self, agent_id: str) -> Path:
        return self.agent_dir(agent_id) / "conversations"

    def conversation_dir(self, agent_id: str, conversation_id: str) -> Path:
        return self.conversations_dir(agent_id) / conversation_id


def project_settings_file(project_dir: Path) -> Path:
    """Project-local settings live in the project, not in the home folder."""
    return project_dir / PROJECT_DIR_NAME / "settings.local.json"


def ensure_dir(path: Path) -> Path:
    """Create a folder (and parents); an unwritable location is a clear error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UnwritableError(path, exc.strerror or str(exc)) from exc
    return path
