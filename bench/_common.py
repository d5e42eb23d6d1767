"""Helpers the benchmarks share: median timers (in-process, and a whole process with its CPU
time) and a fast way to grow a conversation log."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mini_letta.clock import SystemClock, format_timestamp  # noqa: E402
from mini_letta.conversations.messages import Message, Usage  # noqa: E402
from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.ids import new_message_id  # noqa: E402

SENTENCE = "这是一条用来测试的消息，我们在讨论接口的设计和错误处理"
BATCH = 5000


def cpu_times() -> tuple[float, float]:
    """(CPU of this process, CPU of the children it waited for), in seconds."""
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


def median_ms(action: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def warm_bytecode() -> None:
    """Compile the package's bytecode first, so a timed process never compiles (where
    PYTHONDONTWRITEBYTECODE is set, nothing else would write it)."""
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "src", quiet=1)


def process_median_ms(
    command: list[str], cwd: Path, env: Mapping[str, str], runs: int
) -> tuple[float, float]:
    """Median wall and CPU (user + system) milliseconds of running `command` `runs` times; the
    CPU time is what a busy shared machine disturbs least."""
    return interleaved_median_ms([command], cwd, env, runs)[0]


def interleaved_median_ms(
    commands: list[list[str]], cwd: Path, env: Mapping[str, str], runs: int
) -> list[tuple[float, float]]:
    """`process_median_ms` of each command, run in turn (first, second, ..., first, ...)."""
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            cpu_before = _cpu_of_children()
            started = time.perf_counter()
            subprocess.run(command, cwd=cwd, env=dict(env), check=True, capture_output=True)
            walls[index].append(time.perf_counter() - started)
            cpus[index].append(_cpu_of_children() - cpu_before)
    return [
        (statistics.median(wall) * 1000, statistics.median(cpu) * 1000)
        for wall, cpu in zip(walls, cpus, strict=True)
    ]


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load_line(runs: int) -> str:
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; median of {runs} runs"


def fill_conversation(store: ConversationStore, count: int) -> None:
    """Append `count` messages shaped like mock turns (user, answer), in large batches."""
    clock = SystemClock()
    pending: list[Message] = []
    for i in range(count):
        now = clock.now()
        if i % 2 == 0:
            message = Message(new_message_id(now), "user", f"{i} {SENTENCE}", format_timestamp(now))
        else:
            message = Message(
                new_message_id(now),
                "assistant",
                f"（mock）我听到了：{i - 1} {SENTENCE}",
                format_timestamp(now),
                usage=Usage(1, 1),  # implausibly low: ignored, so the estimate is what counts
                stop_reason="end_turn",
                model="mock",
            )
        pending.append(message)
        if len(pending) == BATCH:
            store.append(pending)
            pending = []
    if pending:
        store.append(pending)
