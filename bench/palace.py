"""The memory palace and the memory doctor on a large agent: 1,000 memory files, 500 reflection
runs (each a commit with its `Reflection-Run` trailer, a run record citing the messages it
covered; some no_changes, rejected, failed or undone) and a 3,000-message conversation.

Usage: python bench/palace.py [--files N] [--runs N] [--repeat N]
Prints the median time to build and write the page (target < 2 s), the page's size (target
< 10 MB), and the median time of `memory doctor` on the same memory (target < 1 s).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import fill_conversation, load_line  # noqa: E402

from mini_letta.clock import SystemClock, format_timestamp  # noqa: E402
from mini_letta.conversations.registry import create_conversation  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.ids import new_run_id  # noqa: E402
from mini_letta.memory.repo import GitRepo  # noqa: E402
from mini_letta.palace.gather import PalaceInput  # noqa: E402
from mini_letta.palace.origins import run_doctor  # noqa: E402
from mini_letta.palace.page import build_palace, save_palace  # noqa: E402
from mini_letta.reflection.gate.check import GateLimits  # noqa: E402
from mini_letta.reflection.state.records import RunRecord, SliceInfo, save_run_record  # noqa: E402
from mini_letta.workspace import World, new_agent  # noqa: E402

WINDOW = 128_000
STATUS_CYCLE = ["merged"] * 16 + ["no_changes", "rejected", "failed", "undone"]


def build_agent(root: Path, files: int, runs: int):
    clock = SystemClock()
    world = World(home=Home(root / "home"), cwd=root, environ={}, clock=clock)
    agent = new_agent(world, name="bench")
    store = create_conversation(world.home, agent.id, clock)
    fill_conversation(store, runs * 6)
    ids = [message.id for _, message in store.iter_from(0)]
    memory = world.home.memory_dir(agent.id)
    repo = GitRepo(memory)
    paths = []
    for index in range(files):
        if index < files // 5:
            rel = f"system/area{index % 8}/note{index}.md"
        else:
            rel = f"reference/shelf{index % 20}/page{index}.md"
        target = memory / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"- fact {index}.{n}: option {(index * 7 + n) % 11}\n" for n in range(4))
        target.write_text(f"---\ndescription: Note {index}\n---\n{body}", encoding="utf-8")
        paths.append(rel)
    repo.run("add", "-A")
    repo.run("commit", "-q", "-m", "bench memory")
    for number in range(runs):
        run_id = new_run_id(clock.now())[:-8] + f"{number:08x}"  # unique, in order
        status = STATUS_CYCLE[number % len(STATUS_CYCLE)]
        first = number * 6
        cited: dict[str, dict[str, list[str]]] = {}
        before = repo.head_sha()
        merge = None
        if status in ("merged", "undone"):
            for offset in (0, 1):
                rel = paths[(number * 2 + offset) % files]
                line = f"- learned in run {number}: item {offset}"
                with (memory / rel).open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")
                cited.setdefault(rel, {})[line] = [ids[first + offset * 2]]
            repo.run("add", "-A")
            repo.run("commit", "-q", "-m", f"reflection: run {number}\n\nReflection-Run: {run_id}")
            merge = repo.head_sha()
        now = format_timestamp(clock.now())
        span = (first, first + 6, ids[first], ids[first + 5], 6)
        slice_info = SliceInfo(store.conversation_id, *span)
        save_run_record(
            world.home,
            RunRecord(
                run_id=run_id, agent_id=agent.id, trigger="step-count",
                conversation_id=store.conversation_id, status=status, started_at=now,
                message=f"run {number}: {status}", slices=(slice_info,),
                commit_count=1 if merge else 0, merge_commit=merge, parent_head_before=before,
                finished_at=now, reasons=("a reason",) if status == "rejected" else (),
                error="model failed" if status == "failed" else None, cited_lines=cited,
            ),
        )  # fmt: skip
    return world, agent


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(action, runs: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds: a shared, busy machine moves the wall time far more
    than the CPU time."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), _cpu()
        action()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((_cpu() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        started = time.perf_counter()
        world, agent = build_agent(root, options.files, options.runs)
        print(f"built {options.files} files, {options.runs} runs in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
        limits = GateLimits.for_window(WINDOW)
        source = PalaceInput(world.home, agent, limits, WINDOW, world.clock)
        target = root / "palace.html"
        sizes = []

        def write_page() -> None:
            page = build_palace(source)
            save_palace(target, page.html)
            sizes.append(target.stat().st_size)

        page_ms, page_cpu = _timed(write_page, options.repeat)
        doctor_ms, doctor_cpu = _timed(
            lambda: run_doctor(world.home, agent.id, limits, world.clock), options.repeat
        )
        print(load_line(options.repeat) + " (cpu: this process and its git children)")
        print(f"palace written {page_ms:7.0f} ms wall {page_cpu:6.0f} ms cpu  (target < 2000 ms)")
        print(f"palace size    {sizes[-1] / 1e6:7.2f} MB                  (target < 10 MB)")
        print(f"memory doctor  {doctor_ms:7.0f} ms wall {doctor_cpu:6.0f} ms cpu  (target < 1 s)")


if __name__ == "__main__":
    main()
