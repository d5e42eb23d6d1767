"""The main thread runs the agent's work, one job at a time; the protocol runs beside it.

Turns, session opening and commands are blocking code written for a terminal, where Ctrl-C is
a SIGINT that lands in the main thread, wakes any blocking wait (a model's response, a tool's
command, an approval) and becomes a KeyboardInterrupt the loop records as `interrupted`. So
the work runs here, on the main thread, and `session/cancel` sends this thread that same
SIGINT: an editor's stop button is Ctrl-C, with nothing to re-implement. A cancel reaches
only the job of its own session, and only while that job says it may be interrupted; a stray
interrupt between jobs is dropped.

One SIGINT can be lost: landing after the main thread's last look at its signals and before
it blocks (on a lock, a socket), it wakes nothing and the wait goes on. So a cancel knocks
again every 50 ms until the job's own handler has seen it (or the job ends), and the handler
raises KeyboardInterrupt once per job, so a later knock never interrupts the code that
records the interruption.
"""

from __future__ import annotations

import queue
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class Job:
    """One piece of work for the main thread; `owner` is the session it belongs to."""

    def __init__(self, work: Callable[[Job], Any], owner: str | None) -> None:
        self.work = work
        self.owner = owner
        self.future: Future[Any] = Future()
        self.interruptible = False
        self.cancelled = False
        self.interrupt_seen = False  # set on the main thread when the SIGINT became an exception


class TurnRunner:
    """Jobs submitted from any thread, run in order on the thread that calls `run`."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._current: Job | None = None
        self._thread_id: int | None = None

    def submit(self, work: Callable[[Job], Any], owner: str | None = None) -> Future[Any]:
        job = Job(work, owner)
        self._jobs.put(job)
        return job.future

    def stop(self, *, interrupt: bool = False) -> None:
        """Let `run` return once the jobs before this call are done (`interrupt`: and stop
        the running one, if it may be interrupted)."""
        self._jobs.put(None)
        if interrupt:
            with self._lock:
                job = self._current
                if job is not None and job.owner is not None:
                    self._interrupt(job)

    def _interrupt(self, job: Job) -> bool:
        job.cancelled = True
        if not job.interruptible or self._thread_id is None:
            return False
        if hasattr(signal, "pthread_kill"):
            signal.pthread_kill(self._thread_id, signal.SIGINT)
            threading.Thread(target=self._knock, args=(job, self._thread_id), daemon=True).start()
        else:  # Windows: raised at the main thread's next instruction, not during a wait
            import _thread

            _thread.interrupt_main()
        return True

    def _knock(self, job: Job, thread_id: int, *, every: float = 0.05, tries: int = 200) -> None:
        """Send SIGINT again until `job` has seen one, stopped allowing it, or ended."""
        for _ in range(tries):
            time.sleep(every)
            with self._lock:
                if self._current is not job or not job.interruptible or job.interrupt_seen:
                    return
                signal.pthread_kill(thread_id, signal.SIGINT)

    def _on_sigint(self, signum: int, frame: object) -> None:
        """Ctrl-C's KeyboardInterrupt, once per job: the knocks after the first are dropped."""
        job = self._current  # no lock: this runs on the main thread, which may hold it
        if job is not None:
            if job.interrupt_seen:
                return
            job.interrupt_seen = True
        raise KeyboardInterrupt

    def run(self) -> None:
        """Run jobs until `stop`; must be the main thread (SIGINT is delivered there)."""
        assert threading.current_thread() is threading.main_thread()
        self._thread_id = threading.get_ident()
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            while True:
                try:
                    job = self._jobs.get()
                except KeyboardInterrupt:  # a cancel that arrived as its job ended
                    continue
                if job is None:
                    return
                self._run_one(job)
        finally:
            signal.signal(signal.SIGINT, previous)

    def _run_one(self, job: Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return  # its caller gave up before it began (the connection closed)
        with self._lock:
            self._current = job
        try:
            result = job.work(job)
        except BaseException as exc:  # the job's caller gets it (KeyboardInterrupt too)
            self._finish(job)
            job.future.set_exception(exc if isinstance(exc, Exception) else _Interrupted())
            return
        self._finish(job)
        job.future.set_result(result)

    def _finish(self, job: Job) -> None:
        while True:
            try:
                with self._lock:
                    job.interruptible = False
                    self._current = None
                return
            except KeyboardInterrupt:  # landed while taking the lock: try again
                continue

    def allow_interrupts(self, job: Job, allowed: bool) -> None:
        """Mark the span of `job` a cancel may interrupt (a turn, until its result)."""
        with self._lock:
            job.interruptible = allowed

    def interrupt(self, owner: str) -> bool:
        """Stop `owner`'s running job as Ctrl-C would; False when it has none to stop."""
        with self._lock:
            job = self._current
            if job is None or job.owner != owner:
                return False
            return self._interrupt(job)


class _Interrupted(Exception):
    """A job ended by an interrupt it did not handle itself."""
