"""The reflection agent's tools stay inside the worktree and commit once."""

from __future__ import annotations

import os

import pytest

from mini_letta.reflection.run.tools import reflection_tools
from mini_letta.reflection.run.worktree import create_worktree, remove_worktree
from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
from support.reflection_kit import git, tool_call

HUMAN = "system/human.md"


@pytest.fixture
def worktree(memory_repo, tmp_path):
    wt = create_worktree(memory_repo, tmp_path / "memory-worktrees", "20261008160658-00000001")
    yield wt
    remove_worktree(memory_repo, wt)


@pytest.fixture
def run(worktree, clock):
    context = ToolContext(cwd=worktree.path, clock=clock, memory_dir=worktree.path)
    toolset = Toolset(reflection_tools())

    def call(name, **arguments):
        return execute_tool_call(tool_call(name, **arguments), toolset, context)

    return call


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text("---\ndescription: not memory\n---\nprivate\n")
    return folder


ESCAPES = [
    pytest.param(
        {"command": "create", "path": "../escape.md", "description": "x", "content": "y"},
        id="create-dotdot",
    ),
    pytest.param(
        {"command": "create", "path": "system/../../escape.md", "description": "x", "content": "y"},
        id="create-nested-dotdot",
    ),
    pytest.param(
        {"command": "create", "path": "/tmp/escape.md", "description": "x", "content": "y"},
        id="create-absolute",
    ),
    pytest.param(
        {"command": "create", "path": "~/escape.md", "description": "x", "content": "y"},
        id="create-home",
    ),
    pytest.param({"command": "rename", "path": HUMAN, "new_path": "../human.md"}, id="rename-out"),
    pytest.param(
        {"command": "delete", "path": "../memory/system/human.md"}, id="delete-parent-checkout"
    ),
    pytest.param(
        {
            "command": "create",
            "path": ".git/hooks/pre-commit.md",
            "description": "x",
            "content": "y",
        },
        id="git-dir",
    ),
]


@pytest.mark.parametrize("arguments", ESCAPES)
def test_edits_cannot_leave_the_worktree(run, worktree, memory_repo, arguments):
    before = {p: p.read_bytes() for p in memory_repo.path.rglob("*.md")}
    result = run("memory", **arguments)
    assert result.is_error, result.content
    assert not (worktree.path.parent / "escape.md").exists()
    assert not worktree.repo.changed_paths()
    assert {p: p.read_bytes() for p in memory_repo.path.rglob("*.md")} == before


@pytest.mark.parametrize("path", ["../memory/system/human.md", "/etc/passwd", "../../agent.json"])
def test_reads_cannot_leave_the_worktree(run, path):
    result = run("memory_read", path=path)
    assert result.is_error


def test_a_symlinked_file_to_outside_is_refused(run, worktree, outside):
    os.symlink(outside / "secret.md", worktree.path / "system" / "link.md")
    assert run("memory_read", path="system/link.md").is_error
    edit = run(
        "memory", command="str_replace", path="system/link.md", old_str="private", new_str="x"
    )
    assert edit.is_error and "symlink" in edit.content
    assert (outside / "secret.md").read_text().endswith("private\n")


def test_a_symlinked_folder_to_outside_is_refused(run, worktree, outside):
    os.symlink(outside, worktree.path / "notes")
    result = run("memory", command="create", path="notes/new.md", description="x", content="y")
    assert result.is_error and "symlink" in result.content
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


def test_edits_are_not_committed_until_commit(run, worktree, memory_repo):
    head = worktree.repo.head_sha()
    assert not run("memory", command="insert", path=HUMAN, content="- Preference: tabs").is_error
    created = run(
        "memory",
        command="create",
        path="projects/app.md",
        description="The app",
        content="Uses pnpm",
    )
    assert not created.is_error
    assert worktree.repo.head_sha() == head
    assert worktree.repo.changed_paths() == ["projects/app.md", HUMAN]
    committed = run("memory_commit", message="reflection: tabs and the app\nbody ignored")
    assert not committed.is_error and "2 file(s)" in committed.content
    assert git(worktree.path, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    assert git(worktree.path, "log", "-1", "--format=%s").strip() == "reflection: tabs and the app"
    assert not worktree.repo.is_dirty()
    assert memory_repo.head_sha() == head  # the parent checkout is untouched
    again = run("memory_commit", message="again")
    assert not again.is_error and again.content.startswith("Nothing to commit")


def test_list_and_read(run):
    listing = run("memory_list")
    assert "system/human.md — " in listing.content and "system/persona.md — " in listing.content
    assert "description:" in run("memory_read", path=HUMAN).content


def test_secrets_are_refused_in_edits_and_commit_messages(run, worktree):
    key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
    assert run("memory", command="insert", path=HUMAN, content=f"- key {key}").is_error
    run("memory", command="insert", path=HUMAN, content="- Preference: tabs")
    refused = run("memory_commit", message=f"saved {key}")
    assert refused.is_error and "secret" in refused.content
    assert worktree.repo.changed_paths() == [HUMAN]


def test_the_tools_log_what_they_did_to_the_worktree_as_git_sees_it(worktree, memory_repo, clock):
    """Finalisation takes the tools' log instead of `git status` and `git log`: it must say
    what git says, subjects included (CJK, a conventional prefix, a tab folded)."""
    from mini_letta.reflection.run.tools import RunProvenance
    from mini_letta.reflection.run.worktree import branch_subjects, known_subjects

    provenance = RunProvenance(trailers=("Reflection-Run: x",))
    context = ToolContext(cwd=worktree.path, clock=clock, memory_dir=worktree.path)
    toolset = Toolset(reflection_tools(provenance))
    log = provenance.worktree

    def call(name, **arguments):
        result = execute_tool_call(tool_call(name, **arguments), toolset, context)
        assert not result.is_error, result.content
        return result

    assert not log.edited and known_subjects(worktree, log) == [] == branch_subjects(
        memory_repo, worktree
    )
    call("memory_read", path=HUMAN)
    assert not log.edited  # reading changes nothing
    call("memory", command="insert", path=HUMAN, content="- 喜欢 tabs")
    assert log.edited and worktree.repo.changed_paths() == [HUMAN]
    call("memory_commit", message="feat:  记住\tthe  indent")
    assert not log.edited and worktree.repo.changed_paths() == []
    call("memory", command="create", path="reference/a.md", description="a", content="- a")
    call("memory_commit", message="second one")
    assert known_subjects(worktree, log) == ["second one", "feat: 记住 the indent"]
    assert known_subjects(worktree, log) == branch_subjects(memory_repo, worktree)
    call("memory", command="insert", path=HUMAN, content="- x")
    call("memory", command="str_replace", path=HUMAN, old_str="- x\n", new_str="")
    assert log.edited  # an edit undone by hand still needs git to say the tree is clean
    assert "Nothing to commit" in call("memory_commit", message="nothing").content
    assert not log.edited  # git said so


def test_a_log_the_worktree_does_not_confirm_is_not_taken(worktree, memory_repo, run):
    from mini_letta.reflection.run.worktree import BranchCommit, WorktreeLog, known_subjects

    run("memory", command="insert", path=HUMAN, content="- one")
    run("memory_commit", message="one")
    tip = worktree.repo.head_sha()
    log = WorktreeLog(commits=[BranchCommit(worktree.base, tip, "one")])
    assert known_subjects(worktree, log) == ["one"]
    (worktree.path / HUMAN).write_text((worktree.path / HUMAN).read_text() + "- two\n")
    git(worktree.path, "commit", "-qam", "made outside the tools")
    assert known_subjects(worktree, log) is None  # the tip moved on
    chained = WorktreeLog(commits=[BranchCommit(tip, worktree.repo.head_sha(), "two")])
    assert known_subjects(worktree, chained) is None  # not made on the base
    git(worktree.path, "switch", "-q", "-c", "elsewhere")
    full = WorktreeLog(commits=[*log.commits, *chained.commits])
    assert known_subjects(worktree, full) is None  # HEAD is on a branch, not where the run left it
    git(worktree.path, "switch", "-q", "--detach", "elsewhere")
    assert known_subjects(worktree, full) == ["two", "one"]
