"""The main-thread runner: a cancel is a SIGINT that reaches only its own session's job."""

from __future__ import annotations

import signal
import threading

import pytest

from mini_letta.acp.runner import Job, TurnRunner


def _in_thread(runner: TurnRunner, body) -> threading.Thread:
    def run() -> None:
        try:
            body()
        finally:
            runner.stop()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_cancel_interrupts_the_owners_blocking_job_as_ctrl_c_would():
    runner = TurnRunner()
    started = threading.Event()
    never = threading.Event()

    def work(job: Job) -> str:
        runner.allow_interrupts(job, True)
        started.set()
        try:
            never.wait(50)  # a model call that does not answer
        except KeyboardInterrupt:
            return "interrupted"
        return "waited it out"

    outcome: list[object] = []

    def client() -> None:
        future = runner.submit(work, owner="s1")
        assert started.wait(20)
        assert runner.interrupt("s2") is False  # another session's cancel touches nothing
        assert runner.interrupt("s1") is True
        outcome.append(future.result(timeout=45))  # a loaded machine is slow to deliver it

    thread = _in_thread(runner, client)
    runner.run()
    thread.join(10)
    assert outcome == ["interrupted"]


def test_a_cancel_whose_first_signal_is_lost_still_stops_the_job():
    """A SIGINT landing just before the main thread blocks wakes nothing; the cancel knocks
    again. Here the first one is lost for certain: it arrives while SIGINT is ignored."""
    runner = TurnRunner()
    started, sent, never = threading.Event(), threading.Event(), threading.Event()

    def work(job: Job) -> str:
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:  # restored whatever happens: a worker left ignoring SIGINT passes that on to
            runner.allow_interrupts(job, True)  # every process it starts later (exec keeps it)
            started.set()
            assert sent.wait(20)
        finally:
            signal.signal(signal.SIGINT, handler)
        try:
            never.wait(30)
        except KeyboardInterrupt:
            return "interrupted"
        return "waited it out"

    outcome: list[object] = []

    def client() -> None:
        future = runner.submit(work, owner="s1")
        assert started.wait(20)
        assert runner.interrupt("s1") is True
        sent.set()
        outcome.append(future.result(timeout=45))

    thread = _in_thread(runner, client)
    runner.run()
    thread.join(10)
    assert outcome == ["interrupted"]


def test_a_job_that_does_not_allow_interrupts_is_only_marked_cancelled():
    runner = TurnRunner()
    seen: list[bool] = []
    release = threading.Event()
    started = threading.Event()

    def work(job: Job) -> None:
        started.set()
        release.wait(10)
        seen.append(job.cancelled)

    def client() -> None:
        future = runner.submit(work, owner="s1")
        assert started.wait(10)
        assert runner.interrupt("s1") is False
        release.set()
        future.result(timeout=10)

    thread = _in_thread(runner, client)
    runner.run()
    thread.join(10)
    assert seen == [True]


def test_jobs_run_in_order_and_their_failures_reach_the_caller():
    runner = TurnRunner()
    order: list[int] = []

    def fail(job: Job) -> None:
        raise ValueError("bad")

    results: list[object] = []

    def client() -> None:
        first = runner.submit(lambda job: order.append(1))
        failing = runner.submit(fail)
        last = runner.submit(lambda job: order.append(3) or "done")
        results.append(last.result(timeout=10))
        assert first.done()
        with pytest.raises(ValueError, match="bad"):
            failing.result(timeout=10)

    thread = _in_thread(runner, client)
    runner.run()
    thread.join(10)
    assert order == [1, 3] and results == ["done"]


def test_a_job_whose_caller_gave_up_before_it_began_is_skipped():
    runner = TurnRunner()
    ran: list[str] = []
    gate = threading.Event()

    def client() -> None:
        blocker = runner.submit(lambda job: gate.wait(10))
        dropped = runner.submit(lambda job: ran.append("dropped"))
        assert dropped.cancel()  # the connection closed while it waited its turn
        gate.set()
        blocker.result(timeout=10)
        runner.submit(lambda job: ran.append("next")).result(timeout=10)

    thread = _in_thread(runner, client)
    runner.run()
    thread.join(10)
    assert ran == ["next"]
