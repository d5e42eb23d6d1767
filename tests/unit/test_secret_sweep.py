"""The credential sweep (bench/secret_sweep.py), reduced: planted credentials from every way in
end up nowhere but the conversation logs and the search index."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from support.groups import MCP

BENCH = Path(__file__).resolve().parents[2] / "bench" / "secret_sweep.py"


@pytest.fixture(scope="module")
def sweep():
    spec = importlib.util.spec_from_file_location("secret_sweep", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["secret_sweep"] = module
    spec.loader.exec_module(module)
    return module


# It serves MCP calls and runs the OpenAI SDK against the scripted server: on the worker that
# loads both for the MCP group (about 2.7 s of CPU to import them on any other).
@MCP
@pytest.mark.timeout(240)
def test_a_reduced_sweep_finds_no_planted_credential_outside_the_logs(sweep, tmp_path):
    result = sweep.run_sweep(tmp_path, 10)
    assert result["planted"] == 10
    assert result["requests"] >= 3  # the scripted reflection agent really ran
    assert result["found"] == 0, result["where"]


def test_the_sweep_finds_a_credential_left_anywhere_else(sweep, tmp_path):
    """The search itself works: one planted value in a file outside the logs is found."""
    (text, values), *_ = sweep.plant(1)
    runner = sweep.Sweep(tmp_path)
    stray = runner.home / "agents" / "a" / "notes.txt"
    stray.parent.mkdir(parents=True)
    stray.write_text(f"left here: {text}\n")
    log = runner.home / "agents" / "a" / "conversations" / "c" / "messages.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(f"{values[0]}\n")  # the log may keep it
    result = sweep._figures(runner, [(text, values)], [])
    assert result["found"] == 1 and list(result["where"]) == ["agents/a/notes.txt"]
