"""A sync killed (SIGKILL) at any point leaves both repositories consistent; the next completes.

Each round edits memory, starts a real `mini-letta memory sync`, and kills it after a random
part of the time a whole sync takes, so kills land in fetch, merge and push alike.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from mini_letta.home import Home, git_lock_files
from mini_letta.memory.git_locks import STALE_AFTER
from mini_letta.memory.remote import memory_remote_repo, set_remote
from mini_letta.sync.engine import sync_memory
from mini_letta.sync.state import load_sync_state
from mini_letta.tools.memory_tool import apply_and_commit
from mini_letta.workspace import World, new_agent
from support.cli import cli_env
from support.memory import commit_all, write_file

ROUNDS = 4


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _is_ancestor(repo: Path, older: str, newer: str) -> bool:
    return (
        subprocess.run(
            ["git", "-C", str(repo), "merge-base", "--is-ancestor", older, newer]
        ).returncode
        == 0
    )


def _check_working_tree(world: World, agent_id: str, memory: Path) -> None:
    """Clean, or halfway through a recorded fast-forward: each changed file is as the commit
    before has it, or as the commit after has it, whole or cut short where git was writing it
    (the next sync finishes the move)."""
    status = _git(memory, "status", "--porcelain", "--untracked-files=all")
    changed = [line[3:] for line in status.splitlines()]
    if not changed:
        return
    state = load_sync_state(world.home, agent_id, world.clock)
    assert state.moving_from and state.moving_to, f"dirty without a recorded move: {changed}"
    for path in changed:
        on_disk = (memory / path).read_bytes() if (memory / path).exists() else None
        before, after = (
            _committed(memory, commit, path) for commit in (state.moving_from, state.moving_to)
        )
        cut_short = on_disk is not None and after is not None and after.startswith(on_disk)
        assert on_disk in (before, after) or cut_short, f"{path} matches neither side of the move"


def _committed(repo: Path, commit: str, path: str) -> bytes | None:
    shown = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True
    )
    return shown.stdout if shown.returncode == 0 else None


def _let_time_pass_for_its_git_locks(memory: Path) -> None:
    """A killed git leaves its lock files; the next writer clears them once `STALE_AFTER` old,
    so age them rather than wait (a person's next edit comes later than this loop's)."""
    then = time.time() - STALE_AFTER - 1
    for lock in git_lock_files(memory / ".git"):
        os.utime(lock, (then, then))


def _run_until_busy(
    command: list[str], cwd: Path, env: dict[str, str], lease: Path
) -> subprocess.Popen[bytes]:
    """Start a sync and return once it holds the lease (its git work has begun) or ended."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not lease.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    return proc


def test_sigkill_during_sync_leaves_both_sides_consistent(tmp_path: Path, clock) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    project = tmp_path / "project"
    project.mkdir()
    world = World(home=Home(tmp_path / "home"), cwd=project, environ={}, clock=clock)
    agent = new_agent(world)
    memory = world.home.memory_dir(agent.id)
    set_remote(memory_remote_repo(memory), str(remote))
    for i in range(200):  # enough objects that a push takes a moment
        write_file(memory, f"notes/n{i}.md", f"---\ndescription: n\n---\n{'x' * 4000}{i}\n")
    commit_all(memory, "notes")
    env = cli_env(world.home.root)
    command = [sys.executable, "-m", "mini_letta", "memory", "sync", "--agent", agent.id]
    lease = world.home.agent_dir(agent.id) / "reflection.lease"
    busy = _run_until_busy(command, project, env, lease)
    started = time.monotonic()
    assert busy.wait(timeout=60) == 0
    git_phase = time.monotonic() - started  # from taking the lease to the end
    seen = _git(remote, "rev-parse", "refs/heads/main")
    other = tmp_path / "other"  # another machine pushes too, so each sync must merge
    _git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(other))
    rng = random.Random(7)
    for round_ in range(ROUNDS):
        write_file(other, f"other/o{round_}.md", f"---\ndescription: o\n---\nother {round_}\n")
        commit_all(other, f"other {round_}")
        _git(
            other,
            "-c",
            "user.name=o",
            "-c",
            "user.email=o@o",
            "pull",
            "-q",
            "--no-rebase",
            "--no-edit",
            "origin",
            "main",
        )
        _git(other, "push", "-q", "origin", "HEAD:main")
        args = {
            "command": "create",
            "path": f"fresh/r{round_}.md",
            "description": "r",
            "content": f"round {round_} line\n" * 400,
        }
        apply_and_commit(memory, "create", args, f"round {round_}")
        proc = _run_until_busy(command, project, env, lease)
        deadline = time.monotonic() + rng.uniform(0, git_phase)
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        _let_time_pass_for_its_git_locks(memory)
        _check_working_tree(world, agent.id, memory)
        assert not (memory / ".git" / "MERGE_HEAD").exists()
        _git(memory, "fsck", "--no-dangling")
        _git(remote, "fsck", "--no-dangling")
        now = _git(remote, "rev-parse", "refs/heads/main")
        assert _is_ancestor(remote, seen, now), "the remote moved backwards"
        seen = now
    outcome = sync_memory(world.home, agent.id, clock)
    assert _git(memory, "status", "--porcelain") == ""
    assert (
        _git(remote, "rev-parse", "refs/heads/main")
        == outcome.head
        == _git(memory, "rev-parse", "HEAD")
    )
    published = _git(remote, "ls-tree", "-r", "--name-only", "refs/heads/main")
    for round_ in range(ROUNDS):
        assert f"fresh/r{round_}.md" in published and f"other/o{round_}.md" in published
