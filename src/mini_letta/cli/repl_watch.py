"""The interactive session's background reflections: workers it started, and their lines.

Each worker (cli/background.py) is waited for by a daemon thread. On a terminal the outcome
line is printed as soon as the worker ends, above the prompt, through prompt_toolkit's
`StdoutProxy`, while the user keeps typing, but never while a turn is shown (`turn_running`):
then it waits for the turn's end, so it is never mixed into a streaming answer. Without a
terminal (piped input) finished lines are printed before the next line is read, and leaving
waits for running workers so a script sees every outcome. The lines come from the agent's
outbox, so each is shown exactly once, here or by the next command.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO, cast

from mini_letta.cli.fit import wrap_lines
from mini_letta.cli.reflection_view import render_outcome_line
from mini_letta.cli.terminal import Terminal
from mini_letta.reflection.api import ReflectionOutcome, take_outcomes
from mini_letta.workspace import World

EXIT_WAIT = 600.0  # seconds a piped session waits at exit for its running reflections


@contextmanager
def open_watch(world: World, terminal: Terminal) -> Iterator[ReflectionWatch]:
    """A watch for one interactive session; on a real terminal it prints above the prompt."""
    if not terminal.is_interactive():
        watch = ReflectionWatch(world, terminal.stderr, live=False, width=terminal.columns)
        try:
            yield watch
        finally:
            watch.close()
        return
    from prompt_toolkit.patch_stdout import StdoutProxy

    with StdoutProxy(raw=True) as proxy:
        watch = ReflectionWatch(world, cast(TextIO, proxy), live=True, width=terminal.columns)
        try:
            yield watch
        finally:
            watch.close()


class ReflectionWatch:
    def __init__(
        self,
        world: World,
        out: TextIO,
        *,
        live: bool,
        width: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.world = world
        self.width = width  # the terminal's columns: lines are wrapped to them
        self.agent_id = ""  # set once the session knows its agent
        self.out = out
        self.live = live  # print from the waiting thread (a terminal with a prompt proxy)
        self.turn_running = False  # a turn is on screen: lines wait for print_finished()
        self.on_outcome: Callable[[ReflectionOutcome], None] | None = None  # the status line
        self._lock = threading.Lock()
        self._running: list[subprocess.Popen[bytes]] = []

    def __call__(self, proc: subprocess.Popen[bytes]) -> None:
        """Watch a started worker."""
        with self._lock:
            self._running.append(proc)
        threading.Thread(target=self._wait, args=(proc,), daemon=True).start()

    @property
    def running(self) -> int:
        with self._lock:
            return sum(1 for proc in self._running if proc.poll() is None)

    def print_finished(self) -> None:
        """Print the outcomes waiting in the outbox: finished workers', or other processes'
        (one directory listing when there are none)."""
        with self._lock:
            self._running = [proc for proc in self._running if proc.poll() is None]
            if not self.agent_id:
                return
            for outcome in take_outcomes(self.world.home, self.agent_id, self.world.clock):
                self._write(render_outcome_line(outcome))
                if self.on_outcome is not None:
                    self.on_outcome(outcome)
            self.out.flush()

    def close(self) -> None:
        """At exit: wait for running workers (piped input) or say they carry on (terminal)."""
        with self._lock:
            running = [proc for proc in self._running if proc.poll() is None]
        if running and self.live:
            self._write(
                "  ☾ reflection still running in the background; the next command shows it."
            )
            self.out.flush()
            return
        for proc in running:
            try:
                proc.wait(timeout=EXIT_WAIT)
            except subprocess.TimeoutExpired:
                self._write(f"  ☾ reflection (pid {proc.pid}) is still running; left it.")
        self.print_finished()

    def _write(self, line: str) -> None:
        self.out.write("".join(f"{row}\n" for row in wrap_lines([line], self.width())))

    def _wait(self, proc: subprocess.Popen[bytes]) -> None:
        proc.wait()
        if self.live and not self.turn_running:
            self.print_finished()
