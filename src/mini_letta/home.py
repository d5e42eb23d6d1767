"""The home folder and every path inside it (and the one path mini-letta keeps in a project).

`Home` is resolved once from the environment (`MINI_LETTA_HOME`, else `~/.mini-letta`) and owns
every file name, so the on-disk layout (drawn in docs/architecture.md) lives in this one file;
other modules ask it for paths and never join names themselves. It never creates folders:
creation is explicit (`ensure_dir`), so `--help` or `--version` leaves nothing behind.

A command asks for the same few paths many times (every conversation's files when listing
them, an agent's folder at each step): `_child` remembers each joined path, a tenth of the cost
of building it again with pathlib.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from mini_letta.errors import UnwritableError
from mini_letta.structs import Struct

PROJECT_DIR_NAME = ".mini-letta"
_WORKTREE_PREFIX = "reflection-"


class ConversationFiles(Struct, frozen=True):
    """Where one conversation keeps its files; a reflection run's transcript has its own set."""

    dir: Path
    messages: Path  # the append-only log
    record: Path  # conversation.json
    lock: Path  # serialises turns and compactions
    compaction_flag: Path  # the last compaction, pending until the post-turn decision
    reflection_state: Path  # the watermark
    reflection_state_lock: Path
    payloads_dir: Path  # one redacted slice per reflection run


class Home(Struct, frozen=True):
    root: Path

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Home:
        configured = environ.get("MINI_LETTA_HOME", "").strip()
        if configured:
            return cls(Path(configured).expanduser().absolute())
        return cls(Path(environ.get("HOME", str(Path.home()))) / PROJECT_DIR_NAME)

    @property
    def settings_file(self) -> Path:
        return _child(self.root, "settings.json")

    @property
    def input_history_file(self) -> Path:
        """Lines typed in the interactive session, for the up arrow."""
        return _child(self.root, "history")

    @property
    def agents_dir(self) -> Path:
        return _child(self.root, "agents")

    def agent_dir(self, agent_id: str) -> Path:
        return _child(self.agents_dir, agent_id)

    def agent_file(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "agent.json")

    def agent_lock(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "agent.lock")

    def memory_dir(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "memory")

    def prompt_cache_file(self, agent_id: str) -> Path:
        """The compiled memory section, keyed by the memory repo's HEAD sha."""
        return _child(self.agent_dir(agent_id), "prompt-cache.json")

    def search_index_file(self, agent_id: str) -> Path:
        """The agent's recall index (SQLite FTS5): derived, rebuilt whenever it is in doubt."""
        return _child(self.agent_dir(agent_id), "search-index.sqlite")

    def import_staging_dir(self, agent_id: str) -> Path:
        """Where an imported transcript is written before it is renamed into conversations/."""
        return _child(self.agent_dir(agent_id), "import-staging")

    def import_lock(self, agent_id: str) -> Path:
        """Held by every import into the agent: what import-staging/ holds without it is a
        killed import's leftover."""
        return _child(self.agent_dir(agent_id), "import.lock")

    def memory_sync_file(self, agent_id: str) -> Path:
        """The state of memory sync: last attempt, last error, files left for review."""
        return _child(self.agent_dir(agent_id), "memory-sync.json")

    def memory_worktrees_dir(self, agent_id: str) -> Path:
        """Reflection runs' git worktrees of memory (`worktree_folder` names each one)."""
        return _child(self.agent_dir(agent_id), "memory-worktrees")

    def doctor_file(self, agent_id: str) -> Path:
        """The count of the last `memory doctor`, which `status` shows."""
        return _child(self.agent_dir(agent_id), "doctor.json")

    def palace_file(self, agent_id: str) -> Path:
        """Where `mini-letta palace` writes its page unless told `-o FILE` (owner-only)."""
        return _child(self.agent_dir(agent_id), "palace.html")

    def deleted_agent_dir(self, agent_id: str) -> Path:
        """Where a deleted agent is moved before removal, so no half-deleted agent is listed."""
        return self.agents_dir / f".deleted-{agent_id}"

    # -- reflection, per agent ---------------------------------------------------------------

    def reflections_dir(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "reflections")

    def reflection_record_file(self, agent_id: str, run_id: str) -> Path:
        return self.reflections_dir(agent_id) / f"{run_id}.json"

    def reflection_transcript_file(self, agent_id: str, run_id: str, kind: str) -> Path:
        """A run's side-agent transcript (`messages`: the reflection agent, `merge`: review)."""
        return self.reflections_dir(agent_id) / f"{run_id}.{kind}.jsonl"

    def reflection_manifest_file(self, agent_id: str, run_id: str) -> Path:
        return self.reflections_dir(agent_id) / f"{run_id}.manifest.json"

    def reflection_lease_file(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "reflection.lease")

    def reflection_holder_lock(self, agent_id: str, run_id: str) -> Path:
        """Flocked by a reflection run while it lives, so a reused pid cannot pass for it."""
        return self.agent_dir(agent_id) / f"reflection.lease.{run_id}.held"

    def reflection_queue_file(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "reflection-queue.json")

    def reflection_outbox_dir(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "reflection-outbox")

    def reflection_outbox_entry(self, agent_id: str, sequence: int, stamp: str) -> Path:
        return self.reflection_outbox_dir(agent_id) / f"{sequence:08d}-{stamp}.json"

    # -- conversations -------------------------------------------------------------------------

    def conversations_dir(self, agent_id: str) -> Path:
        return _child(self.agent_dir(agent_id), "conversations")

    def conversation_dir(self, agent_id: str, conversation_id: str) -> Path:
        return _child(self.conversations_dir(agent_id), conversation_id)

    def conversation_file(self, agent_id: str, conversation_id: str) -> Path:
        return _child(self.conversation_dir(agent_id, conversation_id), "conversation.json")

    def conversation_files(self, agent_id: str, conversation_id: str) -> ConversationFiles:
        return _conversation_files(self.conversation_dir(agent_id, conversation_id))

    def run_transcript_files(self, agent_id: str, run_id: str, kind: str) -> ConversationFiles:
        """A run transcript is a conversation whose scaffolding hides next to the run's record."""
        folder = self.reflections_dir(agent_id)
        hidden = f".{run_id}.{kind}"
        return ConversationFiles(
            dir=folder,
            messages=self.reflection_transcript_file(agent_id, run_id, kind),
            record=folder / f"{hidden}.json",
            lock=folder / f"{hidden}.lock",
            compaction_flag=folder / f"{hidden}.compaction-event.json",
            reflection_state=folder / f"{hidden}.reflection-state.json",
            reflection_state_lock=folder / f"{hidden}.reflection-state.lock",
            payloads_dir=folder / f"{hidden}.payloads",
        )


@functools.lru_cache(maxsize=4096, typed=True)
def _child(folder: Path, name: str) -> Path:
    return folder / name


@functools.lru_cache(maxsize=1024, typed=True)
def _conversation_files(folder: Path) -> ConversationFiles:
    return ConversationFiles(
        dir=folder,
        messages=folder / "messages.jsonl",
        record=folder / "conversation.json",
        lock=folder / "conversation.lock",
        compaction_flag=folder / "compaction-event.json",
        reflection_state=folder / "reflection-state.json",
        reflection_state_lock=folder / "reflection-state.lock",
        payloads_dir=folder / "payloads",
    )


def worktree_folder(worktrees_dir: Path, run_id: str) -> Path:
    return worktrees_dir / f"{_WORKTREE_PREFIX}{run_id}"


def is_worktree_folder(path: Path) -> bool:
    """A folder `worktree_folder` made (a crashed run may have left it behind)."""
    return path.name.startswith(_WORKTREE_PREFIX)


def payload_file(payloads_dir: Path, name: str) -> Path:
    return payloads_dir / f"{name}.json"


def is_json_file(path: Path) -> bool:
    """A finished JSON record (not a temp file, not hidden scaffolding)."""
    return path.suffix == ".json" and not path.name.startswith(".")


def memory_lock_file(memory_dir: Path) -> Path:
    """The lock every memory writer holds: `agents/<id>/memory` -> `agents/<id>/memory.lock`."""
    return memory_dir.with_name(memory_dir.name + ".lock")


def memory_journal_file(memory_dir: Path) -> Path:
    """The edit being written: `agents/<id>/memory` -> `agents/<id>/memory-edit.json`."""
    return memory_dir.with_name(memory_dir.name + "-edit.json")


def git_lock_files(git_dir: Path) -> list[Path]:
    """The lock files a running git holds in `git_dir` (a killed git leaves them behind):
    `index.lock`, `HEAD.lock`, `packed-refs.lock` and the like, and a ref's `refs/…/*.lock`.
    Listed with `os.scandir`, whose entries know their type: every memory lock looks, and a
    Path and a stat per entry cost more than the listing."""
    found = [Path(entry.path) for entry in _entries(os.fspath(git_dir)) if _is_lock(entry)]
    pending = [os.path.join(git_dir, "refs")]
    while pending:
        for entry in _entries(pending.pop()):
            if _is_lock(entry):
                found.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return found


def _is_lock(entry: os.DirEntry[str]) -> bool:
    return entry.name.endswith(".lock")


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


@functools.lru_cache(maxsize=1024, typed=True)
def lock_file_for(path: Path) -> Path:
    """The lock that guards a read-modify-write of `path` (settings, queue, lease, outbox)."""
    return path.with_name(path.name + ".lock")


@functools.lru_cache(maxsize=1024, typed=True)
def index_file_for(log: Path) -> Path:
    """The sidecar byte-offset index of an append-only log."""
    return log.with_name(log.name + ".idx")


SKILLS_DIR_NAME = "skills"  # inside the memory repo: skills/<name>/SKILL.md
# Outside the home: other tools' session transcripts (Claude Code's <session>.jsonl, Codex's
# rollout-*.jsonl) and Claude Code's sub-agent transcripts beside them, which `import --all`
# leaves out.
SESSION_FILE_SUFFIX = ".jsonl"
SUBAGENT_FILE_PREFIX = "agent-"
SUBAGENT_DIR_NAME = "subagents"
# Where other tools keep skills, in a project and in the user's home (agentskills.io, then
# Claude Code's), in precedence order.
SKILL_FOLDERS: tuple[str, ...] = (".agents/skills", ".claude/skills")


def memory_skills_dir(memory_dir: Path) -> Path:
    return memory_dir / SKILLS_DIR_NAME


def skill_folders(base: Path) -> tuple[tuple[str, Path], ...]:
    """(label, folder) of each place a project (or a user's home) keeps skills."""
    return tuple((label, base.joinpath(*label.split("/"))) for label in SKILL_FOLDERS)


def user_home_dir(environ: Mapping[str, str]) -> Path | None:
    """The user's home folder from the given environment (no default: tests pass their own)."""
    home = environ.get("HOME", "").strip()
    return Path(home) if home else None


@functools.lru_cache(maxsize=1024, typed=True)
def project_folder(project_dir: Path) -> Path:
    """The one folder mini-letta keeps in a project (its marker when finding the project)."""
    return project_dir / PROJECT_DIR_NAME


def git_marker(folder: Path) -> Path:
    """`.git` (a folder, or a file in a linked work tree): `folder` is a work tree's top."""
    return folder / ".git"


def project_settings_file(project_dir: Path) -> Path:
    """Project-local settings live in the project, not in the home folder."""
    return project_folder(project_dir) / "settings.local.json"


def project_mcp_file(project_dir: Path) -> Path:
    """The project's MCP servers, in Claude Code's format: shared with other tools, committed."""
    return project_dir / ".mcp.json"


def project_mcp_lock(project_dir: Path) -> Path:
    """Guards `mcp-servers add|remove` on `.mcp.json`; kept in our folder, not the project's."""
    return project_folder(project_dir) / "mcp.json.lock"


def project_shared_settings_file(project_dir: Path) -> Path:
    """The project's settings meant to be shared (its hooks), beside the local ones."""
    return project_folder(project_dir) / "settings.json"


def project_gitignore_file(project_dir: Path) -> Path:
    """Written (`*`) when the project folder is made, so it is never committed by accident."""
    return project_folder(project_dir) / ".gitignore"


def ensure_dir(path: Path) -> Path:
    """Create a folder (and parents); an unwritable location is a clear error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UnwritableError(path, exc.strerror or str(exc)) from exc
    return path
