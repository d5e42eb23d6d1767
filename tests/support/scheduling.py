"""The xdist scheduler scripts/check runs (`--dist loadgroup`), minus its quadratic bookkeeping.

xdist's group scheduler makes every ungrouped test a work unit of its own and keeps each unit
it handed to a worker for the whole run; after every test (and on every event the controller
reads) it counts a worker's pending tests by walking all of those units again. For the suite's
2,300 tests that is about a million steps in the controller (about 1 s of CPU, 3 s under a
profiler) to count the two or three tests a worker has queued. Here a unit is forgotten once
all its tests have reported, so the walk covers only the units still running. Which test runs
where, and when, is unchanged; a crashed worker's unfinished units are requeued as before."""

from __future__ import annotations

from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController


class FinishedUnitsForgotten(LoadGroupScheduling):
    """`--dist loadgroup` that drops a work unit from its worker's list when it is done."""

    def mark_test_complete(
        self, node: WorkerController, item_index: int, duration: float = 0
    ) -> None:
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        assigned = self.assigned_work[node]
        unit = assigned[scope]
        unit[nodeid] = True
        if all(unit.values()):
            del assigned[scope]
        self._reschedule(node)
