"""How many git processes a sync starts, pinned loosely: each is a few milliseconds of a
user's time, and a change that repeats a question git already answered shows up here."""

from __future__ import annotations

from collections import Counter

import pytest

from mini_letta.memory.remote import get_remote, memory_remote_repo, set_remote, unset_remote
from mini_letta.memory.repo import GitRepo
from mini_letta.sync.engine import SyncError
from mini_letta.sync.state import load_sync_state
from support.git_calls import git_calls
from support.sync import REMOTE, Machine

# Most git processes per sync, by what it had to do: today's figure and one to spare (in
# parentheses, the figures when they were first counted, then when last pinned).
NOTHING_TO_DO = 2 + 1  # (15, 8)
PUSH = 3 + 1  # (17, 10, 5)
FAST_FORWARD = 8 + 1  # (26, 13, 10)
MERGE = 15 + 1  # (36, 20, 16)


def _counted(machine: Machine) -> Counter[str]:
    """The git processes one sync starts, by subcommand."""
    with git_calls() as calls:
        machine.sync()
    return Counter(calls)


def test_git_processes_per_sync_stay_few(machines):
    first, second, _ = machines
    idle = _counted(second)
    assert idle.total() <= NOTHING_TO_DO and "fetch" not in idle, idle  # its ref file says
    first.remember("system/human.md", "- a fact")
    pushed = _counted(first)
    assert pushed.total() <= PUSH and pushed["push"] == 1, pushed
    assert "update-ref" not in pushed  # git's push moved the tracking branch
    assert "fetch" not in pushed  # the remote is where this machine last left it
    pulled = _counted(second)
    assert pulled.total() <= FAST_FORWARD and "push" not in pulled, pulled
    assert pulled["fetch"] == 1, pulled
    for calls in (pushed, pulled):  # the loose objects said where both sides stand
        assert "rev-parse" not in calls and "rev-list" not in calls, calls
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


TRACKING = "refs/remotes/origin/main"


def test_a_ref_read_from_the_files_is_what_git_says(machines, tmp_path):
    """Sync reads the remote's branch from the files (loose or packed), as git would."""
    _, second, _ = machines
    repo = GitRepo(second.memory)

    def asked(ref: str) -> str | None:
        return repo.run("rev-parse", "-q", "--verify", ref, check=False).strip() or None

    repo.run("pack-refs", "--all")  # packed
    assert not (second.memory / ".git" / TRACKING).exists()
    cloned = repo.head_sha()
    assert repo.ref_sha(TRACKING) == asked(TRACKING) == cloned
    second.remember("system/human.md", "- a fact")
    repo.run("update-ref", TRACKING, repo.head_sha())  # loose, before the packed one
    assert (second.memory / ".git" / TRACKING).is_file()
    assert repo.ref_sha(TRACKING) == asked(TRACKING) == repo.head_sha() != cloned
    assert repo.ref_sha("refs/remotes/origin/mai") is None  # a name that only starts alike
    assert repo.ref_sha("refs/remotes/origin/none") is None is asked("refs/remotes/origin/none")
    repo.run("worktree", "add", "-q", "--detach", str(tmp_path / "tree"))
    assert GitRepo(tmp_path / "tree").ref_sha(TRACKING) == repo.head_sha()  # refs are shared


def test_a_push_git_left_the_tracking_branch_behind_on_is_recorded_by_sync(machines):
    """git's push moves the tracking branch only where a fetch refspec maps it; sync moves it
    itself otherwise, so the next sync knows what the remote holds."""
    first, _, _ = machines
    GitRepo(first.memory).run("config", "--unset-all", "remote.origin.fetch")
    first.remember("system/human.md", "- a fact")
    with git_calls() as calls:
        outcome = first.sync()
    assert outcome.pushed and calls.count("update-ref") == 1
    assert GitRepo(first.memory).ref_sha(TRACKING) == outcome.head


def test_the_remote_s_url_is_read_again_once_the_config_changed(machines, tmp_path):
    """One `git config` answers the URL with the transport and drivers; the same repository
    object sees a new URL, and a URL in an included file is read every time."""
    first, _, _ = machines
    repo = memory_remote_repo(first.memory)
    assert get_remote(repo) == str(tmp_path / REMOTE)
    set_remote(repo, str(tmp_path / "other.git"))
    assert get_remote(repo) == str(tmp_path / "other.git")
    assert unset_remote(repo) and get_remote(repo) is None
    included = first.memory / ".git" / "more.cfg"
    included.write_text('[remote "origin"]\n\turl = /one.git\n', encoding="utf-8")
    with (first.memory / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write("[include]\n\tpath = more.cfg\n")
    assert get_remote(repo) == "/one.git"
    included.write_text('[remote "origin"]\n\turl = /two.git\n', encoding="utf-8")
    assert get_remote(repo) == "/two.git"
