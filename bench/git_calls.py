"""Git processes a user pays for per memory operation, counted with an audit hook.

Usage: python bench/git_calls.py [--trace]
Prints how many `git` processes (by subcommand) start for: creating an agent, one memory-tool
edit, a reflection run that merges, a reflection run with nothing to keep, and a mock
headless turn (in-process). Each git process costs about 2-3 ms of CPU. `--trace` also
prints each call with the product function that started it.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.conversations.messages import Message  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.ids import new_message_id  # noqa: E402
from mini_letta.clock import format_timestamp  # noqa: E402
from mini_letta.reflection.run.launch import launch_reflection  # noqa: E402
from mini_letta.reflection.run.setup import LaunchOptions  # noqa: E402
from mini_letta.tools.base import ToolContext  # noqa: E402
from mini_letta.tools.memory_tool import MemoryTool  # noqa: E402
from mini_letta.workspace import World, new_agent, resolve_conversation  # noqa: E402

_calls: list[tuple[str, str]] | None = None


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event != "subprocess.Popen" or _calls is None:
        return
    argv = [str(arg) for arg in args[1]]  # type: ignore[attr-defined]
    if not argv or Path(argv[0]).name != "git":
        return
    rest = argv[1:]
    name = "git"
    skip = False
    for arg in rest:
        if skip:
            skip = False
        elif arg in ("-C", "-c"):
            skip = True
        elif not arg.startswith("-"):
            name = arg
            break
    frames = [f for f in traceback.extract_stack()[:-1] if "mini_letta" in f.filename]
    caller = " < ".join(f"{Path(f.filename).stem}.{f.name}" for f in reversed(frames[-4:]))
    _calls.append((name, caller))


def count(action: Callable[[], object]) -> list[tuple[str, str]]:
    """The git processes `action` starts, as (subcommand, caller)."""
    global _calls
    _calls = []
    try:
        action()
        return _calls
    finally:
        _calls = None


def _say(store: object, clock: SystemClock, *texts: str) -> None:
    for text in texts:
        batch = []
        for role, body in (("user", text), ("assistant", f"ok: {text}")):
            now = clock.now()
            batch.append(Message(new_message_id(now), role, body, format_timestamp(now)))
        store.append(batch)  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace", action="store_true")
    opts = parser.parse_args()
    sys.addaudithook(_hook)
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        clock = SystemClock()
        world = World(Home(root / "home"), root / "project", {}, clock)
        new_agent(world, name="warm")  # imports loaded before counting
        holder: dict[str, object] = {}
        rows.append(("agent creation", count(lambda: holder.update(agent=new_agent(world)))))
        agent = holder["agent"]
        memory_dir = world.home.memory_dir(agent.id)  # type: ignore[attr-defined]
        ctx = ToolContext(cwd=memory_dir, clock=clock, memory_dir=memory_dir)
        edit = {
            "command": "insert",
            "path": "system/human.md",
            "content": "- likes tea",
            "reason": "bench",
        }
        MemoryTool().run({**edit, "content": "- warm"}, ctx)
        rows.append(("memory-tool edit", count(lambda: MemoryTool().run(edit, ctx))))
        store = resolve_conversation(world, agent, None, new=True)  # type: ignore[arg-type]
        _say(store, clock, "我更喜欢用 tabs 缩进", "今天我们决定以后一律用 pnpm")
        merged = count(lambda: holder.update(o=launch_reflection(world, agent, store, LaunchOptions())))
        assert holder["o"].status == "merged", holder["o"]  # type: ignore[attr-defined]
        rows.append(("reflection run, merged", merged))
        _say(store, clock, "hello there", "thanks")
        nothing = count(lambda: holder.update(o=launch_reflection(world, agent, store, LaunchOptions())))
        assert holder["o"].status == "no_changes", holder["o"]  # type: ignore[attr-defined]
        rows.append(("reflection run, no changes", nothing))
        rows.append(("mock turn (in-process)", count(lambda: _turn(root))))
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
