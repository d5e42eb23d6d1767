"""What a sync remote sends passes the memory tool's checks before memory moves.

An "attacker" commits straight into the shared remote with plain git (no mini-letta checks): links,
devices' stand-ins, secrets, huge files, thousands of files, files outside the layout. The sync
refuses the whole move, names each path (a secret by its kind, never its value), leaves local
memory and its repository as they were (the refused objects are dropped), and pushes nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mini_letta.errors import MemfsError
from mini_letta.home import Home
from mini_letta.memory.files import MAX_MEMORY_FILES
from mini_letta.memory.incoming import MAX_LISTED
from mini_letta.sync.engine import SyncError
from mini_letta.workspace import World, new_agent
from support.git_calls import git_calls
from support.sync import Machine, git

AWS = "AKIAIOSFODNN7EXAMPLE"
GHP = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


class Attacker:
    """Someone with plain git and write access to the remote: the files of a checkout of its
    branch, committed straight into the remote with no mini-letta check (as a push would leave
    them, without the cost of one)."""

    def __init__(self, tree: Path, remote: Path) -> None:
        self.path, self.remote = tree, remote

    def write(self, rel: str, data: bytes | str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)

    def link(self, rel: str, to: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            target.unlink()
        target.symlink_to(to)

    def push(self, message: str = "from elsewhere", gitlinks: dict[str, str] | None = None) -> None:
        """Commit the tree (and each gitlink path -> commit) onto the remote's branch."""
        self.git("add", "-A")
        for rel, sha in (gitlinks or {}).items():
            self.git("update-index", "--add", "--cacheinfo", f"160000,{sha},{rel}")
        self.git("-c", "user.name=a", "-c", "user.email=a@a", "commit", "-qm", message)

    def git(self, *args: str) -> str:
        return git(self.path, f"--git-dir={self.remote}", f"--work-tree={self.path}", *args)


@pytest.fixture
def attacker(attacker_clone: Path, machines) -> Attacker:
    return Attacker(attacker_clone, machines[2].remote)


def _refused(machine: Machine, *needles: str) -> str:
    head = machine.head()
    with pytest.raises(SyncError) as caught:
        machine.sync()
    message = str(caught.value)
    for needle in needles:
        assert needle in message, message
    assert machine.head() == head
    assert git(machine.memory, "status", "--porcelain") == ""
    return message


def _all_objects(repo: Path) -> bytes:
    listing = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    )
    return listing.stdout


def test_incoming_symlinks_are_refused_by_name(machines, attacker):
    _, second, _ = machines
    links = {"notes/x.md": "/etc/passwd", "system/zero.md": "/dev/zero"}
    for rel, to in links.items():
        attacker.link(rel, to)
    attacker.push()
    message = _refused(second)
    for rel in links:
        assert _names(message, rel, "symbolic link"), message
        assert not (second.memory / rel).is_symlink()


def test_an_incoming_submodule_is_refused_by_name(machines, attacker):
    _, second, _ = machines
    attacker.push("sub", gitlinks={"notes/sub.md": second.head()})
    _refused(second, "notes/sub.md", "submodule")


def test_a_remote_symlink_over_a_locally_edited_persona_never_hides_the_local_edit(
    machines, attacker
):
    _, second, _ = machines
    second.remember("system/persona.md", "- a local change to the persona")
    attacker.link("system/persona.md", "/etc/passwd")
    attacker.push()
    _refused(second, "system/persona.md")
    assert "- a local change to the persona" in second.read("system/persona.md")
    assert not list((second.memory / "system").glob("persona.md~*"))
    # nothing was pushed: the remote still has the attacker's commit on top, not ours
    assert "a local change" not in git(attacker.remote, "log", "-p", "refs/heads/main")


def test_incoming_secrets_are_refused_by_kind_and_leave_no_object_behind(machines, attacker):
    _, second, _ = machines
    before = _all_objects(second.memory)
    attacker.write("notes/keys.md", f"---\ndescription: keys\n---\n- aws {AWS}\n")
    attacker.write("system/human.md", f"---\ndescription: me\n---\n- token {GHP}\n")
    attacker.push()
    with git_calls() as calls:
        message = _refused(second, "notes/keys.md", "system/human.md", "AWS access key")
    assert AWS not in message and GHP not in message
    assert "prune" in calls and "gc" not in calls  # a few loose objects: no repack for them
    objects = _all_objects(second.memory)
    assert AWS.encode() not in objects and GHP.encode() not in objects
    assert len(objects) <= len(before) + 4096  # no more than the fetch bookkeeping


def test_a_secret_in_an_incoming_commit_message_is_refused(machines, attacker):
    _, second, _ = machines
    attacker.write("notes/plain.md", "---\ndescription: plain\n---\n- nothing odd\n")
    attacker.push(f"add notes; token {GHP}")
    message = _refused(second, "commit", "GitHub token")
    assert GHP not in message
    assert GHP.encode() not in _all_objects(second.memory)


# Each past one of the memory tool's limits; one push brings all of them (no more than the
# refusal names), and each must be named with its own reason.
PAST_THE_LIMITS = [
    ("notes/big.md", b"---\ndescription: big\n---\n" + b"x" * 500_000, "past the limit"),
    ("notes/nul.md", b"\0" * 1000, "NUL"),
    ("notes/bin.md", bytes(range(128, 256)) * 10, "UTF-8"),
    ("notes/run.sh", b"#!/bin/sh\n", "outside the memory layout"),
    (".hidden/x.md", b"---\ndescription: h\n---\n", "outside the memory layout"),
]


def test_incoming_files_past_the_memory_tool_s_limits_are_refused(machines, attacker):
    assert len(PAST_THE_LIMITS) <= MAX_LISTED
    _, second, _ = machines
    for rel, data, _ in PAST_THE_LIMITS:
        attacker.write(rel, data)
    attacker.push()
    message = _refused(second)
    for rel, _, problem in PAST_THE_LIMITS:
        assert _names(message, rel, problem), (rel, message)


def _names(message: str, rel: str, problem: str) -> bool:
    """Whether the refusal names `rel` with `problem` (each problem is one `; ` part)."""
    return any(
        f"{rel} " in part or f"{rel}:" in part for part in message.split("; ") if problem in part
    )


def test_too_many_incoming_files_are_refused(machines, attacker):
    _, second, _ = machines
    for n in range(MAX_MEMORY_FILES + 1):
        attacker.write(f"notes/n{n:05}.md", f"---\ndescription: n{n}\n---\n- {n}\n")
    attacker.push()
    before = _all_objects(second.memory)
    assert b"description: n1000" not in before
    with git_calls() as calls:
        _refused(second, f"past the limit of {MAX_MEMORY_FILES}")
    assert "gc" in calls  # the fetch kept its objects as a pack: repacked without them
    assert b"description: n1000" not in _all_objects(second.memory)


def test_a_clean_incoming_change_still_moves_memory(machines, attacker):
    _, second, _ = machines
    attacker.write("notes/ok.md", "---\ndescription: ok\n---\n- uses pnpm\n")
    attacker.push()
    assert second.sync().pulled == 1
    assert "uses pnpm" in second.read("notes/ok.md")


def test_a_clone_of_a_remote_holding_a_link_is_refused(machines, attacker, tmp_path, clock):
    remote = machines[2].remote
    attacker.link("notes/x.md", "/etc/passwd")
    attacker.push()
    project = tmp_path / "third" / "project"
    project.mkdir(parents=True)
    world = World(home=Home(tmp_path / "third" / "home"), cwd=project, environ={}, clock=clock)
    with pytest.raises(MemfsError, match=r"notes/x\.md is a symbolic link"):
        new_agent(world, memory_remote=str(remote))


def _non_bare_remote(path: Path, marker: Path) -> None:
    """A repository with a working tree set up to run programs when pushed to."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    script = path.parent / "evil.sh"
    script.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n")
    script.chmod(0o755)
    for key, value in (
        ("receive.denyCurrentBranch", "updateInstead"),
        ("filter.evil.smudge", str(script)),
        ("filter.evil.clean", str(script)),
        ("filter.evil.required", "true"),
        ("core.fsmonitor", str(script)),
    ):
        git(path, "config", key, value)
    (path / ".git" / "info").mkdir(exist_ok=True)
    (path / ".git" / "info" / "attributes").write_text("* filter=evil\n")


def test_a_local_remote_with_a_working_tree_is_refused_and_runs_nothing(machines, tmp_path):
    desk, _, _ = machines
    marker = tmp_path / "ran"
    target = tmp_path / "shared"
    _non_bare_remote(target, marker)
    git(desk.memory, "remote", "set-url", "origin", str(target))
    desk.remember("system/human.md", "- a fact")
    with pytest.raises(SyncError, match=r"not a bare repository.*git clone --bare"):
        desk.sync()
    assert not marker.exists()
    assert git(target, "for-each-ref") == ""  # nothing was pushed there


def test_a_bare_remote_named_by_a_file_url_still_syncs(machines):
    desk, _, history = machines
    git(desk.memory, "remote", "set-url", "origin", f"file://{history.remote}")
    desk.remember("system/human.md", "- a fact")
    assert desk.sync().pushed
    assert "- a fact" in git(history.remote, "show", "refs/heads/main:system/human.md")
