"""Memory sync cost: a memory at its 1,000-file limit, one changed file, a local bare remote.

Prints the median time of `sync_memory` (in-process: lease, lock, fetch, integrate, push) and the
git processes it starts (counted with an audit hook) for four cases: nothing to do, one local edit
to push, a fast-forward to the other machine's edit, and one edit on each of two machines (fetch,
merge, push). Run: python bench/memory_sync.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import _common  # noqa: F401  (puts src/ on sys.path)

from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.memory.files import MAX_MEMORY_FILES
from mini_letta.memory.remote import memory_remote_repo, set_remote
from mini_letta.sync.engine import sync_memory
from mini_letta.tools.memory_tool import apply_and_commit
from mini_letta.workspace import World, new_agent

FILES = MAX_MEMORY_FILES - 2  # and the two system files: at the limit a clone accepts
RUNS = 5
_started: list[str] = []  # the programs of the processes started since the last `_timed`


def _count(event: str, args: tuple[object, ...]) -> None:
    if event == "subprocess.Popen":
        argv = args[1]
        if isinstance(argv, list | tuple) and argv:
            _started.append(Path(str(argv[0])).name)


def _machine(root: Path, remote: Path, join: bool) -> tuple[World, str]:
    (root / "project").mkdir(parents=True)
    world = World(Home(root / "home"), root / "project", {}, SystemClock())
    agent = new_agent(world, memory_remote=str(remote) if join else None)
    if not join:
        set_remote(memory_remote_repo(world.home.memory_dir(agent.id)), str(remote))
    return world, agent.id


def _edit(world: World, agent_id: str, n: int) -> None:
    memory = world.home.memory_dir(agent_id)
    args = {"command": "insert", "path": f"notes/n{n % FILES}.md", "content": f"- fact {n}"}
    apply_and_commit(memory, "insert", args, f"fact {n}")


def _timed(world: World, agent_id: str, gits: list[int] | None = None) -> float:
    _started.clear()
    started = time.perf_counter()
    sync_memory(world.home, agent_id, world.clock)
    took = (time.perf_counter() - started) * 1000
    if gits is not None:
        gits.append(_started.count("git"))
    return took


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="mini-letta-bench-sync-"))
    remote = root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    desk, desk_id = _machine(root / "desk", remote, join=False)
    memory = desk.home.memory_dir(desk_id)
    for i in range(FILES):
        path = memory / "notes" / f"n{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ndescription: note {i}\n---\n- first fact of note {i}\n", "utf-8")
    git = ["git", "-C", str(memory), "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", f"{FILES} notes"], check=True)
    sync_memory(desk.home, desk_id, desk.clock)
    laptop, laptop_id = _machine(root / "laptop", remote, join=True)
    sys.addaudithook(_count)
    idle, push, pull, merge = [], [], [], []
    gits: dict[str, list[int]] = {"idle": [], "push": [], "pull": [], "merge": []}
    for n in range(RUNS):
        idle.append(_timed(desk, desk_id, gits["idle"]))
        _edit(desk, desk_id, n)
        push.append(_timed(desk, desk_id, gits["push"]))
        pull.append(_timed(laptop, laptop_id, gits["pull"]))
        _edit(desk, desk_id, 100 + n)
        _edit(laptop, laptop_id, 500 + n)
        _timed(desk, desk_id)
        merge.append(_timed(laptop, laptop_id, gits["merge"]))
        _timed(desk, desk_id)
    print(f"memory of {FILES + 2} files, local bare remote, median of {RUNS}:")
    print(f"  nothing to sync           {median(idle):7.1f} ms {max(gits['idle']):3} git")
    print(f"  one changed file (push)   {median(push):7.1f} ms {max(gits['push']):3} git")
    print(f"  the other's edit (pull)   {median(pull):7.1f} ms {max(gits['pull']):3} git")
    print(
        f"  one edit on each machine  {median(merge):7.1f} ms {max(gits['merge']):3} git"
        " (fetch, merge, push)"
    )


if __name__ == "__main__":
    sys.exit(main())
