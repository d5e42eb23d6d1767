"""`reflections list` names the runs that went wrong and why; `--failed` shows only them."""

from __future__ import annotations

import json

from mini_letta.errors import TransientError
from mini_letta.reflection.policy.launcher import launch_automatic
from mini_letta.reflection.run.setup import LaunchOptions
from support.reflection_kit import ScriptedProvider, add_turn


def test_failed_runs_are_listed_with_their_reasons(world, agent, store, cli):
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="好")
    broken = LaunchOptions(provider=ScriptedProvider([TransientError("overloaded")]))
    failed = launch_automatic(world, agent, store, "step-count", options=broken)
    world.clock.advance(3600)
    merged = launch_automatic(world, agent, store, "step-count")
    assert (failed.status, merged.status) == ("failed", "merged")

    listed = cli("reflections", "list").stdout.splitlines()
    assert listed[0].startswith(f"{merged.run_id}  merged")
    assert listed[1].startswith(f"{failed.run_id}  failed")
    assert "the model failed: overloaded" in listed[1]
    assert listed[2].startswith("1 of 2 run(s) merged nothing: 1 failed")

    only = cli("reflections", "list", "--failed")
    assert merged.run_id not in only.stdout and failed.run_id in only.stdout
    records = json.loads(cli("reflections", "list", "--failed", "--json").stdout)
    assert [(r["runId"], r["status"]) for r in records] == [(failed.run_id, "failed")]
    assert "overloaded" in records[0]["error"]


def test_no_failed_runs_says_so(world, agent, store, cli):
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进", answer="好")
    launch_automatic(world, agent, store, "step-count")
    result = cli("reflections", "list", "--failed")
    assert result.code == 0 and result.stdout == "No failed or rejected reflection runs.\n"
    assert "merged nothing" not in cli("reflections", "list").stdout
