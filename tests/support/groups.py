"""Tests that xdist keeps on one worker (scripts/check runs `--dist loadgroup`): importing a
model SDK costs seconds of CPU (anthropic about 4 s, openai and mcp about 2 s each) in every
worker that imports it, so the tests that load one run where it is already loaded."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

SDK = pytest.mark.xdist_group("sdk")  # the openai or anthropic SDK
MCP = pytest.mark.xdist_group("mcp")  # the MCP SDK

# Skips a test where the MCP SDK is missing without importing it (an import at collection would
# cost every worker its 2 s, for tests that run on one).
NO_MCP = pytest.mark.skipif(find_spec("mcp") is None, reason="the MCP SDK is not installed")


def group_node_ids(items: list[pytest.Item]) -> None:
    """Suffix each grouped test's id with `@group`, as xdist's loadgroup means to: on pytest 9.2
    xdist 3.8 still writes the retired `item._nodeid`, so every test ran where it landed and each
    worker paid for each SDK (pytest-dev/pytest-xdist#1386). A no-op where xdist's own suffix
    took."""
    for item in items:
        names = sorted(
            {
                str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                for mark in item.iter_markers("xdist_group")
            }
        )
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            # pytest 9.2's structured id (older versions never get here)
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(item.nodeid + suffix)
