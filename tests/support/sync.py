"""Two homes ("machines") sharing one memory remote, for the sync tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mini_letta.home import Home
from mini_letta.memory.edits import read_memory_file
from mini_letta.memory.remote import memory_remote_repo, set_remote
from mini_letta.sync.engine import sync_memory
from mini_letta.tools.memory_tool import apply_and_commit
from mini_letta.workspace import World, new_agent


class Machine:
    def __init__(self, root: Path, clock, remote: Path, *, join: bool) -> None:
        project = root / "project"
        project.mkdir(parents=True)
        self.world = World(home=Home(root / "home"), cwd=project, environ={}, clock=clock)
        self.agent = new_agent(self.world, memory_remote=str(remote) if join else None)
        if not join:
            set_remote(memory_remote_repo(self.memory), str(remote))

    @property
    def memory(self) -> Path:
        return self.world.home.memory_dir(self.agent.id)

    def remember(self, path: str, text: str) -> None:
        args = {"command": "insert", "path": path, "content": text}
        apply_and_commit(self.memory, "insert", args, f"remember {text}")

    def create(self, path: str, body: str) -> None:
        args = {"command": "create", "path": path, "description": "notes", "content": body}
        apply_and_commit(self.memory, "create", args, f"create {path}")

    def replace(self, path: str, old: str, new: str) -> None:
        args = {"command": "str_replace", "path": path, "old_str": old, "new_str": new}
        apply_and_commit(self.memory, "str_replace", args, "change")

    def sync(self):
        return sync_memory(self.world.home, self.agent.id, self.world.clock)

    def read(self, path: str) -> str:
        return read_memory_file(self.memory, path)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


class RemoteHistory:
    """Records the remote's `main` after every sync; each value must descend from the last."""

    def __init__(self, remote: Path) -> None:
        self.remote = remote
        self.seen: list[str] = []

    def check(self) -> None:
        head = git(self.remote, "rev-parse", "refs/heads/main")
        if self.seen:
            older = self.seen[-1]
            code = subprocess.run(
                ["git", "-C", str(self.remote), "merge-base", "--is-ancestor", older, head]
            ).returncode
            assert code == 0, f"the remote moved backwards: {older[:7]} -> {head[:7]}"
        self.seen.append(head)
