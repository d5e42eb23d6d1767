"""The suite's own plumbing: under `pytest -n` (scripts/check), the tests of one `xdist_group`
share a worker, so an SDK or a parsed package is loaded once, not on each worker."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest


@pytest.mark.xdist_group("plumbing")
def test_a_grouped_test_carries_its_group_to_the_scheduler(request: pytest.FixtureRequest) -> None:
    """xdist's scheduler reads the group from the node id's `@group` suffix (tests/conftest.py
    adds it where xdist's own way no longer takes)."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("groups exist only on xdist workers under --dist loadgroup")
    assert request.node.nodeid.endswith("::" + request.node.name + "@plumbing")


class _Worker:
    """What xdist's scheduler asks of a worker: a hashable handle it sends test indices to."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _run_schedule(scheduler_class: type) -> tuple[dict[str, list[str]], int]:
    """Drives a scheduler through a run of two workers finishing tests in the order they were
    sent: the tests each worker ran, and the most units a worker's list held at any time."""
    collection = [f"tests/test_m{m}.py::test_{t}" for m in range(6) for t in range(7)]
    collection += [f"tests/test_g.py::test_{t}@sdk" for t in range(5)]
    config = SimpleNamespace(
        getvalue={"tx": ["2*popen"]}.__getitem__,
        option=SimpleNamespace(loadscopereorder=True),
    )
    from xdist.remote import Producer

    scheduler = scheduler_class(config, Producer("scheduler", enabled=False))
    workers = [_Worker("gw0"), _Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)
    for worker in workers:
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    done = {worker.name: 0 for worker in workers}
    most_units = 0
    while not scheduler.tests_finished:
        worker = min((w for w in workers if len(w.sent) > done[w.name]), key=lambda w: done[w.name])
        scheduler.mark_test_complete(worker, worker.sent[done[worker.name]])
        done[worker.name] += 1
        most_units = max(most_units, *(len(units) for units in scheduler.assigned_work.values()))
    return {w.name: [collection[i] for i in w.sent] for w in workers}, most_units


def test_the_scheduler_forgets_finished_units_and_schedules_as_xdist_does() -> None:
    """FinishedUnitsForgotten (tests/support/scheduling.py) sends every test once, a group to
    one worker, in xdist's own order, while its per-worker list stays a few units long
    (xdist's grows with every test a worker ran, and is walked after each)."""
    from xdist.scheduler import LoadGroupScheduling

    from support.scheduling import FinishedUnitsForgotten

    ours, our_most = _run_schedule(FinishedUnitsForgotten)
    theirs, their_most = _run_schedule(LoadGroupScheduling)
    assert ours == theirs
    ran = sorted(nodeid for nodeids in ours.values() for nodeid in nodeids)
    assert len(ran) == len(set(ran)) == 47
    assert any(
        all(f"tests/test_g.py::test_{t}@sdk" in run for t in range(5)) for run in ours.values()
    )
    assert our_most <= 3 < their_most


def test_tmp_path_is_a_new_empty_folder_per_test_named_after_it(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    """tests/conftest.py's tmp_path: empty, private (0700), under the session's temporary
    folder, named as pytest names it (the test's name cut to 30, then a number), one per test."""
    assert tmp_path.is_dir() and not any(tmp_path.iterdir())
    assert tmp_path.parent == tmp_path_factory.getbasetemp()
    assert re.fullmatch(re.escape(request.node.name[:30]) + "[0-9]+", tmp_path.name)
    assert tmp_path.stat().st_mode & 0o077 == 0
    other = request.getfixturevalue("tmp_path")
    assert other == tmp_path  # one per test, however often it is asked for
