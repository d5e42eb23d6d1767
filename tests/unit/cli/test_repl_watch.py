"""A background reflection's line never lands inside a streaming answer: it waits for the turn."""

from __future__ import annotations

import io
import subprocess
import sys

from mini_letta.cli.repl_watch import ReflectionWatch
from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.reflection.state.outbox import post_outcome
from mini_letta.reflection.state.outcome import ReflectionOutcome
from mini_letta.workspace import World


def _finished_worker() -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait(timeout=10)
    return proc


def test_a_worker_ending_during_a_turn_is_shown_after_it(tmp_path):
    world = World(Home(tmp_path / "home"), tmp_path, {}, SystemClock())
    out = io.StringIO()
    watch = ReflectionWatch(world, out, live=True)
    watch.agent_id = "agent-1"
    seen: list[ReflectionOutcome] = []
    watch.on_outcome = seen.append
    outcome = ReflectionOutcome("2 memory commits", status="merged", run_id="run-1")
    post_outcome(world.home, "agent-1", outcome, world.clock)

    watch.turn_running = True
    watch._wait(_finished_worker())  # the waiting thread's work, run here
    assert out.getvalue() == ""

    watch.turn_running = False
    watch.print_finished()  # what the session does when the turn has ended
    assert out.getvalue() == "  ☾ reflection run-1: merged — 2 memory commits\n"
    assert [o.run_id for o in seen] == ["run-1"]

    post_outcome(world.home, "agent-1", outcome, world.clock)
    watch._wait(_finished_worker())  # between turns it is shown at once
    assert out.getvalue().count("run-1") == 2


def test_a_failed_runs_line_wraps_to_the_window_with_its_whole_reason(tmp_path):
    world = World(Home(tmp_path / "home"), tmp_path, {}, SystemClock())
    out = io.StringIO()
    watch = ReflectionWatch(world, out, live=False, width=lambda: 40)
    watch.agent_id = "agent-1"
    reason = "the provider refused the request: quota exhausted until tomorrow"
    post_outcome(world.home, "agent-1", ReflectionOutcome(reason, status="failed", run_id="r1"),
                 world.clock)  # fmt: skip
    watch.print_finished()
    rows = out.getvalue().splitlines()
    assert rows[0].startswith("  ☾ reflection r1: failed") and len(rows) > 2
    assert all(len(row) <= 40 for row in rows) and all(r.startswith("    ") for r in rows[1:])
    assert " ".join(" ".join(rows).split()).endswith(reason)
