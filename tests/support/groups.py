"""Tests that xdist keeps on one worker (scripts/check runs `--dist loadgroup`): importing a
model SDK costs seconds of CPU (anthropic about 4 s, openai and mcp about 2 s each, acp 1 s) in
every worker that imports it, so the tests that load one run where it is already loaded."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

SDK = pytest.mark.xdist_group("sdk")  # the openai or anthropic SDK
MCP = pytest.mark.xdist_group("mcp")  # the MCP SDK
ACP = pytest.mark.xdist_group("acp")  # the ACP SDK (its pydantic schema: about 1 s of CPU)

# Skips a test where the MCP SDK is missing without importing it (an import at collection would
# cost every worker its 2 s, for tests that run on one).
NO_MCP = pytest.mark.skipif(find_spec("mcp") is None, reason="the MCP SDK is not installed")
NO_ACP = pytest.mark.skipif(find_spec("acp") is None, reason="the ACP SDK is not installed")
