"""Sync through a git remote: two homes ("machines") and one bare repository.

Every edit made on either side ends up on both; an overlapping edit is kept visibly; the
remote's branch only ever moves forward (no force-push); failures are recorded and reported once.
"""

from __future__ import annotations

import os

import pytest

from mini_letta.errors import InvalidValueError
from mini_letta.memory.layout import DEFAULT_HUMAN
from mini_letta.memory.remote import check_remote_url, memory_remote_repo, set_remote
from mini_letta.structs import replace
from mini_letta.sync.conflicts import REVIEW_HEADING
from mini_letta.sync.engine import SyncError
from mini_letta.sync.state import (
    files_needing_review,
    load_sync_state,
    save_sync_state,
    take_unreported_error,
)
from mini_letta.tools.memory_tool import apply_and_commit
from support.git_calls import git_calls
from support.sync import Machine, git

# Most git processes of a merge that resolves one conflicted file one folder down: 21 today
# and one to spare (43 when first counted, then 27, then 22; tests/unit/sync/test_sync_git_calls.py
# has the other kinds of sync).
CONFLICTED_MERGE = 21 + 1


def test_a_second_machine_joins_and_shares_one_history(machines):
    first, second, _ = machines
    assert second.head() == first.head()
    assert git(second.memory, "config", "remote.origin.url") == git(
        first.memory, "config", "remote.origin.url"
    )


@pytest.mark.parametrize("order", ["first-then-second", "second-then-first"])
def test_edits_on_both_machines_end_up_on_both(machines, order):
    first, second, history = machines
    first.create("projects/alpha.md", "alpha uses pnpm\n")
    second.create("projects/beta.md", "beta uses cargo\n")
    second.remember("system/human.md", "- likes tabs")
    first.replace("system/persona.md", "long-lived assistant", "long-lived, careful assistant")
    a, b = (first, second) if order == "first-then-second" else (second, first)
    a.sync()
    history.check()
    outcome = b.sync()
    history.check()
    assert outcome.merged and outcome.pushed and not outcome.needs_review
    a.sync()
    history.check()
    for machine in (first, second):
        assert "alpha uses pnpm" in machine.read("projects/alpha.md")
        assert "beta uses cargo" in machine.read("projects/beta.md")
        assert "- likes tabs" in machine.read("system/human.md")
        assert "careful assistant" in machine.read("system/persona.md")
    assert first.head() == second.head()


def test_both_machines_remembering_at_the_end_of_a_file_keeps_both(machines):
    first, second, history = machines
    first.remember("system/human.md", "- lives in Lisbon")  # past the starter line
    first.sync()
    second.sync()
    first.remember("system/human.md", "- uses pnpm")
    second.remember("system/human.md", "- likes tabs")
    first.sync()
    second.sync()
    first.sync()
    history.check()
    for machine in (first, second):
        text = machine.read("system/human.md")
        assert "- uses pnpm" in text and "- likes tabs" in text
        assert REVIEW_HEADING not in text


def _overlapping_edits(first, second) -> None:
    """Both machines replace one shared line differently; the first has pushed its edit."""
    old = "- indentation: not decided yet"  # a real line (the new-memory placeholder is not one)
    first.remember("system/human.md", old)
    first.sync()
    second.sync()
    first.replace("system/human.md", old, "- prefers spaces")
    second.replace("system/human.md", old, "- prefers tabs")
    first.sync()


def test_an_overlapping_edit_is_kept_visibly_reported_and_listed_on_both_machines(machines):
    first, second, _ = machines
    _overlapping_edits(first, second)
    second_head, first_head = second.head(), first.head()
    with git_calls() as calls:
        outcome = second.sync()  # the laptop merges
    assert outcome.needs_review == ("system/human.md",)
    assert len(calls) <= CONFLICTED_MERGE, calls  # the few, pinned loosely
    text = second.read("system/human.md")
    assert "- prefers tabs" in text.partition(REVIEW_HEADING)[0]
    assert "- prefers spaces" in text.partition(REVIEW_HEADING)[2]
    received = first.sync()  # the desk only fast-forwards to the merge
    assert received.needs_review == ("system/human.md",) and not received.merged
    assert first.read("system/human.md") == text
    home, agent_id, clock = first.world.home, first.agent.id, first.world.clock
    assert files_needing_review(home, agent_id, clock) == ("system/human.md",)
    block = text.partition(REVIEW_HEADING)[2]
    # named by commits, so it reads right on the desk as on the laptop that wrote it
    assert f"version of commit {second_head[:7]}" in block
    assert f"version of commit {first_head[:7]}" in block
    assert "this machine" not in block and "other machine" not in block
    assert first.sync().needs_review == ("system/human.md",)  # still listed until resolved
    home, agent_id, clock = second.world.home, second.agent.id, second.world.clock
    assert files_needing_review(home, agent_id, clock) == ("system/human.md",)
    second.replace("system/human.md", text.partition("\n" + REVIEW_HEADING)[2], "")
    second.replace("system/human.md", "\n" + REVIEW_HEADING, "")
    assert files_needing_review(home, agent_id, clock) == ()


def test_two_replacements_of_the_starter_line_are_a_conflict_not_two_facts(machines):
    first, second, _ = machines
    starter = DEFAULT_HUMAN.strip()
    first.replace("system/human.md", starter, "- name: Ana, a Go developer")
    second.replace("system/human.md", starter, "- name: Ana, a Rust developer")
    first.sync()
    assert second.sync().needs_review == ("system/human.md",)
    assert first.sync().needs_review == ("system/human.md",)
    for machine in (first, second):
        above, _, review = machine.read("system/human.md").partition(REVIEW_HEADING)
        assert "Rust developer" in above and "Go developer" not in above
        assert "Go developer" in review


def test_a_file_deleted_on_one_side_and_changed_on_the_other_is_kept(machines):
    first, second, _ = machines
    first.create("projects/gamma.md", "gamma\n")
    first.sync()
    second.sync()
    delete = {"command": "delete", "path": "projects/gamma.md"}
    apply_and_commit(first.memory, "delete", delete, "drop gamma")
    second.replace("projects/gamma.md", "gamma", "gamma, now in rust")
    first.sync()
    second.sync()
    first.sync()
    assert "gamma, now in rust" in first.read("projects/gamma.md")


def test_an_unreachable_remote_fails_once_and_the_next_sync_retries(machines, tmp_path):
    first, _, _ = machines
    set_remote(memory_remote_repo(first.memory), str(tmp_path / "gone.git"))
    first.remember("system/human.md", "- offline note")
    with pytest.raises(SyncError, match="memory sync failed: git fetch failed"):
        first.sync()
    home, agent_id, clock = first.world.home, first.agent.id, first.world.clock
    assert load_sync_state(home, agent_id, clock).failures == 1
    assert take_unreported_error(home, agent_id, clock) is not None
    assert take_unreported_error(home, agent_id, clock) is None  # reported once
    assert "- offline note" in first.read("system/human.md")  # local memory keeps working


def test_sync_refuses_uncommitted_changes_and_changes_nothing(machines):
    first, _, _ = machines
    (first.memory / "system" / "human.md").write_text("hand edit\n", encoding="utf-8")
    head = first.head()
    with pytest.raises(SyncError, match="uncommitted changes"):
        first.sync()
    assert first.head() == head
    assert (first.memory / "system" / "human.md").read_text(encoding="utf-8") == "hand edit\n"


def test_a_remote_rewound_by_someone_else_gets_our_history_back(machines):
    first, second, history = machines
    remote = history.remote
    first.remember("system/human.md", "- fact one")
    first.sync()
    second.sync()
    root = git(remote, "rev-list", "--max-parents=0", "refs/heads/main")
    git(remote, "update-ref", "refs/heads/main", root)  # a server-side force-push
    second.remember("system/human.md", "- fact two")
    second.sync()
    text = first.read("system/human.md")
    first.sync()
    assert "- fact one" in first.read("system/human.md") and "- fact two" in first.read(
        "system/human.md"
    )
    assert "- fact one" in text
    assert "- fact one" in git(remote, "show", "refs/heads/main:system/human.md")


def test_repository_configured_programs_never_run_during_sync(machines, tmp_path):
    """Neither the remote's programs (on the push) nor the memory repository's own (its hooks,
    and a filter that would run as a pull checks files out) run."""
    first, second, history = machines
    remote = history.remote
    marker = tmp_path / "ran"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    hook.chmod(0o755)
    git(remote, "config", "core.alternateRefsCommand", f"touch {marker}")
    local_hook = first.memory / ".git" / "hooks" / "pre-push"
    local_hook.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    local_hook.chmod(0o755)
    for key, value in (("smudge", f"touch {marker}; cat"), ("required", "true")):
        git(second.memory, "config", f"filter.evil.{key}", value)
    (second.memory / ".git" / "info").mkdir(exist_ok=True)
    (second.memory / ".git" / "info" / "attributes").write_text("* filter=evil\n")
    first.remember("system/human.md", "- a fact")
    assert first.sync().pushed
    assert second.sync().pulled == 1 and "- a fact" in second.read("system/human.md")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://me:hunter2@example.com/mem.git", "password"),
        ("ext::sh -c touch% /tmp/pwned", "not allowed"),
        ("-uhack", "not a git remote URL"),
        ("gopher://example.com/x", "not allowed"),
        ("", "empty"),
    ],
)
def test_bad_remote_urls_are_refused_with_the_reason(url, problem, tmp_path):
    with pytest.raises(InvalidValueError, match=problem):
        check_remote_url(url, tmp_path)


def test_good_remote_urls_are_kept(tmp_path):
    assert check_remote_url("git@github.com:me/mem.git", tmp_path) == "git@github.com:me/mem.git"
    assert check_remote_url("https://example.com/m.git", tmp_path) == "https://example.com/m.git"
    assert check_remote_url("../m.git", tmp_path / "p") == str(tmp_path / "m.git")


def test_a_sync_merge_never_writes_a_credential_into_its_message(machines):
    """A file whose name holds a key (committed outside mini-letta) is edited on both sides;
    the merge message would list it for review, so the sync is refused and says why."""
    key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
    first, second, _ = machines

    def commit_note(machine: Machine, body: str) -> None:
        note = machine.memory / "notes" / f"{key}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"---\ndescription: n\n---\n{body}\n", encoding="utf-8")
        git(machine.memory, "add", "-A")
        git(machine.memory, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "n")

    commit_note(first, "base")
    first.sync()
    second.sync()
    commit_note(first, "one")
    commit_note(second, "two")
    first.sync()
    head = second.head()
    with pytest.raises(SyncError, match=r"secret \(OpenAI API key\)") as caught:
        second.sync()
    assert key not in str(caught.value)
    assert second.head() == head
    for machine in (first, second):
        assert key not in git(machine.memory, "log", "--all", "--format=%B")


def _start_a_move(first: Machine, second: Machine) -> str:
    """Publish `first`'s commits and record on `second` a fast-forward to them, as a sync does
    before its checkout (the killed sync had fetched them); returns the move's target. A plain
    push publishes them: how they reached the remote is not what these tests are about."""
    git(first.memory, "push", "-q", "origin", "main")
    git(second.memory, "fetch", "-q", "origin")
    head = second.head()
    target = first.head()
    home, agent_id, clock = second.world.home, second.agent.id, second.world.clock
    state = load_sync_state(home, agent_id, clock)
    save_sync_state(home, agent_id, replace(state, moving_from=head, moving_to=target))
    return target


def _checked_out(first: Machine, second: Machine, path: str, length: int | None = None) -> None:
    """Write `first`'s version of `path` into `second`'s tree, as the killed checkout had
    (whole, or its first `length` bytes when git died while writing it)."""
    moved = second.memory / path
    moved.parent.mkdir(parents=True, exist_ok=True)
    moved.write_bytes((first.memory / path).read_bytes()[:length])


@pytest.mark.parametrize("written", [None, 0, 3], ids=["whole", "created-empty", "cut-short"])
def test_a_fast_forward_killed_halfway_is_finished_by_the_next_sync(machines, written):
    first, second, _ = machines
    first.create("projects/alpha.md", "alpha\n" * 50)
    first.create("projects/beta.md", "beta\n")
    target = _start_a_move(first, second)
    # the checkout got as far as alpha (all of it, or as much as git had written), then died
    _checked_out(first, second, "projects/alpha.md", written)
    outcome = second.sync()
    assert outcome.head == target and git(second.memory, "status", "--porcelain") == ""
    assert second.read("projects/alpha.md").count("alpha") == 50
    assert "beta" in second.read("projects/beta.md")


def test_a_link_the_killed_checkout_made_is_compared_as_a_link_never_followed(machines, tmp_path):
    """A link a killed checkout made is undone by where it points, never by what it names; the
    commit that brings it is then refused, so memory stays where it was."""
    first, second, _ = machines
    outside = tmp_path / "outside.txt"  # what the link names, and never what is compared
    outside.write_text("not memory\n", encoding="utf-8")
    (first.memory / "projects").mkdir()
    (first.memory / "projects" / "link.md").symlink_to(outside)
    git(first.memory, "add", "projects/link.md")
    git(first.memory, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "link")
    head = second.head()
    _start_a_move(first, second)
    (second.memory / "projects").mkdir()
    (second.memory / "projects" / "link.md").symlink_to(outside)  # as far as git had got
    with pytest.raises(SyncError, match=r"projects/link\.md is a symbolic link"):
        second.sync()
    assert second.head() == head
    assert git(second.memory, "status", "--porcelain") == ""
    assert not os.path.lexists(second.memory / "projects" / "link.md")
    assert outside.read_text(encoding="utf-8") == "not memory\n"


def test_a_move_killed_after_its_index_was_written_is_finished_too(machines):
    first, second, _ = machines
    first.create("projects/alpha.md", "alpha\n")
    first.remember("system/persona.md", "- a changed persona")
    target = _start_a_move(first, second)
    for path in ("projects/alpha.md", "system/persona.md"):  # files and index moved, HEAD not
        _checked_out(first, second, path)
    git(second.memory, "add", "projects/alpha.md", "system/persona.md")
    outcome = second.sync()
    assert outcome.head == target and git(second.memory, "status", "--porcelain") == ""
    assert second.read("projects/alpha.md") == first.read("projects/alpha.md")


def test_a_person_s_edit_is_never_taken_for_a_half_done_move(machines):
    first, second, _ = machines
    first.create("projects/alpha.md", "alpha\n")
    _start_a_move(first, second)
    (second.memory / "system" / "human.md").write_text("my own edit\n", encoding="utf-8")
    with pytest.raises(SyncError, match="uncommitted changes"):
        second.sync()
    assert (second.memory / "system" / "human.md").read_text(encoding="utf-8") == "my own edit\n"


def test_a_half_done_move_followed_by_an_agent_edit_still_syncs(machines):
    first, second, _ = machines
    first.create("projects/alpha.md", "alpha\n")
    _start_a_move(first, second)
    _checked_out(first, second, "projects/alpha.md")
    second.remember("system/human.md", "- a new fact")  # the agent commits in between
    outcome = second.sync()
    assert git(second.memory, "status", "--porcelain") == ""
    assert "alpha" in second.read("projects/alpha.md") and "- a new fact" in second.read(
        "system/human.md"
    )
    assert outcome.merged
