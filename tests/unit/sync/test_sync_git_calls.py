"""How many git processes a sync starts, pinned loosely: each is a few milliseconds of a
user's time, and a change that repeats a question git already answered shows up here."""

from __future__ import annotations

from collections import Counter

import pytest

from mini_letta.sync.engine import SyncError
from mini_letta.sync.state import load_sync_state
from support.git_calls import git_calls
from support.sync import Machine

# Most git processes per sync, by what it had to do: today's figure and one to spare (the
# figures before they were counted in parentheses).
NOTHING_TO_DO = 9 + 1  # (15)
PUSH = 11 + 1  # (17)
FAST_FORWARD = 14 + 1  # (26)
MERGE = 21 + 1  # (36)


def _counted(machine: Machine) -> Counter[str]:
    """The git processes one sync starts, by subcommand."""
    with git_calls() as calls:
        machine.sync()
    return Counter(calls)


def test_git_processes_per_sync_stay_few(machines):
    first, second, _ = machines
    idle = _counted(second)
    assert idle.total() <= NOTHING_TO_DO, idle
    first.remember("system/human.md", "- a fact")
    pushed = _counted(first)
    assert pushed.total() <= PUSH and pushed["push"] == 1, pushed
    pulled = _counted(second)
    assert pulled.total() <= FAST_FORWARD and "push" not in pulled, pulled
    first.remember("system/human.md", "- one more")
    second.create("projects/beta.md", "beta\n")
    first.sync()
    merged = _counted(second)
    assert merged.total() <= MERGE and merged["merge-tree"] == 1, merged


def test_a_push_refused_while_the_remote_stood_still_fails_at_once_with_git_s_reason(machines):
    """Only a remote that moved is worth another attempt; a refusal for any other reason (here
    the remote's branch is locked) is reported after one push, with what git said."""
    first, _, history = machines
    (history.remote / "refs" / "heads" / "main.lock").write_text("", encoding="utf-8")
    first.remember("system/human.md", "- a fact")
    with git_calls() as calls, pytest.raises(SyncError, match="git push failed: .*lock"):
        first.sync()
    assert calls.count("push") == 1
    home, agent_id, clock = first.world.home, first.agent.id, first.world.clock
    assert load_sync_state(home, agent_id, clock).failures == 1
