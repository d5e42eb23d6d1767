"""Git processes a user pays for per memory operation, counted with an audit hook.

Usage: python bench/git_calls.py [--trace]
Prints how many `git` processes (by subcommand) start for: creating an agent, one memory-tool
edit, a reflection run that merges, a reflection run with nothing to keep, and a mock
headless turn (in-process). Each git process costs about 2-3 ms of CPU. `--trace` also
prints each call with the product function that started it.

Before the git work of issue 22 (08f424e): 5, 5, 23, 12 and 2; after it: 3, 3, 15, 8 and 2;
at 729c3a3 the two runs took 14 and 8; since a run takes its worktree's status and its
commits from its tools' log (checked against the branch tip in the files), and its commit
tool names what it staged with `git add -A -v` instead of a `git status` first: 11 and 6.
Session 5 (a detached worktree removed in Python, the gate's diff from the files, one
cat-file process per snapshot, the prompt cache written at creation, git's index read to
skip a status): creation 3, memory-tool edit 1, the two runs 6 and 3, a mock turn 0.
Session 5: the worktree is detached (no branch to delete) and removed in the process, the
gate's diff is made from the files the tools kept, and an edit of tracked files commits with
one `git commit -- paths`: 7 (status 2, ls-tree, cat-file, worktree add, commit, merge) and 4.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from mini_letta.agents.records import AgentRecord  # noqa: E402
from mini_letta.clock import SystemClock, format_timestamp  # noqa: E402
from mini_letta.conversations.messages import Message  # noqa: E402
from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.ids import new_message_id  # noqa: E402
from mini_letta.reflection.run.launch import launch_reflection  # noqa: E402
from mini_letta.reflection.run.setup import LaunchOptions  # noqa: E402
from mini_letta.tools.base import ToolContext  # noqa: E402
from mini_letta.tools.memory_tool import MemoryTool  # noqa: E402
from mini_letta.workspace import World, new_agent, resolve_conversation  # noqa: E402
from support.git_calls import subcommand  # noqa: E402

_calls: list[tuple[str, str]] | None = None


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event != "subprocess.Popen" or _calls is None:
        return
    argv = [str(arg) for arg in args[1]]  # type: ignore[attr-defined]
    if not argv or Path(argv[0]).name != "git":
        return
    name = subcommand(argv[1:])
    frames = [
        f
        for f in traceback.extract_stack()[:-1]
        if "mini_letta" in f.filename and not f.filename.endswith(("/gitproc.py", "/repo.py"))
    ]
    caller = " < ".join(f"{Path(f.filename).stem}.{f.name}" for f in reversed(frames[-4:]))
    _calls.append((name, caller))


def count(action: Callable[[], object]) -> tuple[object, list[tuple[str, str]]]:
    """What `action` returns, and the git processes it starts as (subcommand, caller)."""
    global _calls
    _calls = []
    try:
        return action(), _calls
    finally:
        _calls = None


def _say(store: ConversationStore, clock: SystemClock, *texts: str) -> None:
    for text in texts:
        batch = []
        for role, body in (("user", text), ("assistant", f"ok: {text}")):
            now = clock.now()
            batch.append(Message(new_message_id(now), role, body, format_timestamp(now)))
        store.append(batch)


def _scenarios(root: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    clock = SystemClock()
    world = World(Home(root / "home"), root / "project", {}, clock)
    new_agent(world, name="warm")  # imports loaded before counting
    agent, created = count(lambda: new_agent(world))
    assert isinstance(agent, AgentRecord)
    memory_dir = world.home.memory_dir(agent.id)
    ctx = ToolContext(cwd=memory_dir, clock=clock, memory_dir=memory_dir)
    edit = {"command": "insert", "path": "system/human.md", "content": "- tea", "reason": "b"}
    MemoryTool().run({**edit, "content": "- warm"}, ctx)
    _, edited = count(lambda: MemoryTool().run(edit, ctx))
    store = resolve_conversation(world, agent, None, new=True)
    runs = []
    for said, expected in (
        (("我更喜欢用 tabs 缩进", "今天我们决定以后一律用 pnpm"), "merged"),
        (("hello there", "thanks"), "no_changes"),
    ):
        _say(store, clock, *said)
        outcome, calls = count(lambda: launch_reflection(world, agent, store, LaunchOptions()))
        assert getattr(outcome, "status", None) == expected, outcome
        runs.append(calls)
    _, turn = count(lambda: _turn(root))
    return [
        ("agent creation", created),
        ("memory-tool edit", edited),
        ("reflection run, merged", runs[0]),
        ("reflection run, no changes", runs[1]),
        ("mock turn (in-process)", turn),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", action="store_true")
    opts = parser.parse_args()
    sys.addaudithook(_hook)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "project").mkdir()
        rows = _scenarios(Path(tmp))
    for label, calls in rows:
        by_name = collections.Counter(name for name, _ in calls)
        detail = ", ".join(f"{name} {n}" for name, n in by_name.most_common())
        print(f"{label:28} {len(calls):3} git  ({detail})")
        if opts.trace:
            for name, caller in calls:
                print(f"    {name:14} {caller}")


def _turn(root: Path) -> None:
    import io

    from mini_letta.cli.main import main as cli_main
    from mini_letta.cli.terminal import Terminal

    env = {"MINI_LETTA_HOME": str(root / "home"), "HOME": str(root), "PATH": "/usr/bin:/bin"}
    out, err = io.StringIO(), io.StringIO()
    terminal = Terminal(io.StringIO(""), out, err, env, root / "project")
    code = cli_main(["chat", "-p", "hi"], terminal)
    assert code == 0, err.getvalue()


if __name__ == "__main__":
    main()
