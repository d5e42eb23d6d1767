"""Two homes ("machines") sharing one memory remote, for the sync tests.

Building the pair costs about forty git processes (two agents, a first push, a clone), so it is
built once per test process (`build_two_machines`) and each test gets its own copy
(`copy_two_machines`): the copy is the same files, with the remote URL in each clone's config
pointed at the copied remote, so no test ever sees another's repositories. Refs are read from
the files where a test only needs to know where a branch is (no git process for it).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from mini_letta.agents.registry import list_agents
from mini_letta.home import Home
from mini_letta.memory.edits import read_memory_file
from mini_letta.memory.gitfiles import stored_ref
from mini_letta.memory.remote import memory_remote_repo, set_remote
from mini_letta.memory.repo import GitRepo
from mini_letta.sync.engine import sync_memory
from mini_letta.tools.memory_tool import apply_and_commit
from mini_letta.workspace import World, new_agent

# The folders of a pair, under one root: the bare remote, the machine that pushed first, the
# machine that joined by cloning, and a plain git clone of the remote (no mini-letta at all).
REMOTE, DESK, LAPTOP, ATTACKER = "remote.git", "desk", "laptop", "attacker"


class Machine:
    def __init__(self, root: Path, clock, remote: Path, *, join: bool) -> None:
        project = root / "project"
        project.mkdir(parents=True)
        self.world = World(home=Home(root / "home"), cwd=project, environ={}, clock=clock)
        self.agent = new_agent(self.world, memory_remote=str(remote) if join else None)
        if not join:
            set_remote(memory_remote_repo(self.memory), str(remote))

    @classmethod
    def reopen(cls, root: Path, clock) -> Machine:
        """The machine whose home and project are under `root` (its home holds one agent)."""
        machine = cls.__new__(cls)
        home = Home(root / "home")
        machine.world = World(home=home, cwd=root / "project", environ={}, clock=clock)
        (machine.agent,) = list_agents(home)
        return machine

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

    def head(self) -> str:
        """The memory's HEAD commit, read from the files."""
        return GitRepo(self.memory).head_sha()

    def sync(self):
        return sync_memory(self.world.home, self.agent.id, self.world.clock)

    def read(self, path: str) -> str:
        return read_memory_file(self.memory, path)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def bare_remote(path: Path) -> Path:
    """A new bare repository whose HEAD names `main`, the branch memory syncs."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


def build_two_machines(root: Path, clock) -> None:
    """Under `root`: a remote, a desk that pushed its new memory there, a laptop that joined
    by cloning it, and a plain clone of it. Copy it with `copy_two_machines`, never use it."""
    remote = bare_remote(root / REMOTE)
    Machine(root / DESK, clock, remote, join=False).sync()
    Machine(root / LAPTOP, clock, remote, join=True)
    subprocess.run(
        ["git", "clone", "-q", "-b", "main", str(remote), str(root / ATTACKER)], check=True
    )


def copy_two_machines(built: Path, root: Path, clock) -> tuple[Machine, Machine, Path]:
    """(desk, laptop, remote): a copy of the pair `build_two_machines` made, under `root`.
    The plain clone is not copied; `copy_plain_checkout` copies its files for a test that
    uses them."""
    for name in (REMOTE, DESK, LAPTOP):
        _copy(built / name, root / name)
    desk, laptop = Machine.reopen(root / DESK, clock), Machine.reopen(root / LAPTOP, clock)
    for machine in (desk, laptop):
        point_at_remote(machine.memory, built, root)
    return desk, laptop, root / REMOTE


def copy_plain_checkout(built: Path, root: Path) -> Path:
    """The files of the plain git clone `build_two_machines` made (the remote's branch as the
    desk pushed it), copied under `root` without its repository."""
    shutil.copytree(
        built / ATTACKER, root / ATTACKER, symlinks=True, ignore=shutil.ignore_patterns(".git")
    )
    return root / ATTACKER


def _copy(source: Path, target: Path) -> None:
    # git's sample hooks (a quarter of the files) never run, and no file the tests copy is
    # executable: names and bytes only
    skip = shutil.ignore_patterns("*.sample")
    shutil.copytree(source, target, symlinks=True, ignore=skip, copy_function=shutil.copyfile)


def point_at_remote(clone: Path, built: Path, root: Path) -> None:
    """Point a copied clone's `origin` at the copied remote: its config names the remote
    `build_two_machines` made, one line rewritten here (git reads the file as it is)."""
    config = clone / ".git" / "config"
    text = config.read_text(encoding="utf-8")
    old, new = f"\turl = {built / REMOTE}\n", f"\turl = {root / REMOTE}\n"
    assert text.count(old) == 1, text
    config.write_text(text.replace(old, new), encoding="utf-8")


class RemoteHistory:
    """Records the remote's `main` after every sync; each value must descend from the last."""

    def __init__(self, remote: Path) -> None:
        self.remote = remote
        self.seen: list[str] = []

    def check(self) -> None:
        head = stored_ref(self.remote, "refs/heads/main") or git(
            self.remote, "rev-parse", "refs/heads/main"
        )
        if self.seen and self.seen[-1] != head:
            older = self.seen[-1]
            code = subprocess.run(
                ["git", "-C", str(self.remote), "merge-base", "--is-ancestor", older, head]
            ).returncode
            assert code == 0, f"the remote moved backwards: {older[:7]} -> {head[:7]}"
        self.seen.append(head)
