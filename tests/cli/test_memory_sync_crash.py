"""A sync killed (SIGKILL) at any point leaves both repositories consistent; the next completes.

Each round edits memory, starts a real sync process, and kills its process group after a random
part of the time a whole sync takes, so kills land in fetch, merge and push alike. One Python
process forks each sync (a start and its imports per round would cost more than the sync); the
`memory sync` command itself is run by tests/cli/test_memory_sync_cli.py.
"""

from __future__ import annotations

import contextlib
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


# Forks a sync of the agent for each line read (the file it touches when the sync ended), in a
# session of its own so the test can kill the sync and its git processes at once; says the
# sync's pid, then "reaped" once it has ended or been killed.
SYNCER = """
import os, sys
from pathlib import Path
from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.sync.engine import sync_memory
home, agent_id = Home(Path(sys.argv[1])), sys.argv[2]
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            sync_memory(home, agent_id, SystemClock())
        finally:
            Path(line.strip()).touch()
            os._exit(0)
    print(pid, flush=True)
    os.waitpid(pid, 0)
    print("reaped", flush=True)
"""


def _start_busy(syncer: subprocess.Popen[str], lease: Path, done: Path) -> int:
    """Start a sync and return its pid once it holds the lease (its git work has begun) or
    has ended."""
    assert syncer.stdin is not None and syncer.stdout is not None
    syncer.stdin.write(f"{done}\n")
    syncer.stdin.flush()
    pid = int(syncer.stdout.readline())
    deadline = time.monotonic() + 30
    while not lease.exists() and not done.exists() and time.monotonic() < deadline:
        time.sleep(0.002)
    return pid


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
    lease = world.home.agent_dir(agent.id) / "reflection.lease"
    started = time.monotonic()
    sync_memory(world.home, agent.id, clock)
    git_phase = time.monotonic() - started  # about what a whole sync takes
    seen = _git(remote, "rev-parse", "refs/heads/main")
    other = tmp_path / "other"  # another machine pushes too, so each sync must merge
    _git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(other))
    rng = random.Random(7)
    with subprocess.Popen(
        [sys.executable, "-c", SYNCER, str(world.home.root), agent.id],
        cwd=project,
        env=cli_env(world.home.root),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as syncer:
        assert syncer.stdout is not None
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
            done = tmp_path / f"done-{round_}"
            pid = _start_busy(syncer, lease, done)
            deadline = time.monotonic() + rng.uniform(0, git_phase)
            while time.monotonic() < deadline and not done.exists():
                time.sleep(0.005)
            with contextlib.suppress(ProcessLookupError):  # gone: it had finished
                os.killpg(pid, signal.SIGKILL)
            assert syncer.stdout.readline() == "reaped\n"
            _let_time_pass_for_its_git_locks(memory)
            _check_working_tree(world, agent.id, memory)
            assert not (memory / ".git" / "MERGE_HEAD").exists()
            _git(memory, "fsck", "--no-dangling")
            _git(remote, "fsck", "--no-dangling")
            now = _git(remote, "rev-parse", "refs/heads/main")
            assert _is_ancestor(remote, seen, now), "the remote moved backwards"
            seen = now
        syncer.stdin.close()  # type: ignore[union-attr]
        assert syncer.wait(timeout=30) == 0
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
