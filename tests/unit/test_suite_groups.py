"""The suite's own plumbing: under `pytest -n` (scripts/check), the tests of one `xdist_group`
share a worker, so an SDK or a parsed package is loaded once, not on each worker."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("plumbing")
def test_a_grouped_test_carries_its_group_to_the_scheduler(request: pytest.FixtureRequest) -> None:
    """xdist's scheduler reads the group from the node id's `@group` suffix (tests/conftest.py
    adds it where xdist's own way no longer takes)."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("groups exist only on xdist workers under --dist loadgroup")
    assert request.node.nodeid.endswith("::" + request.node.name + "@plumbing")
