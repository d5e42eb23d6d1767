"""The memory tool with real git: one commit per change, and memory untouched on any failure."""

from __future__ import annotations

import json
import subprocess

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import GitError, MemfsError, SecretDetectedError
from mini_letta.memory.secrets import secret_values
from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
from mini_letta.tools.memory_tool import MemoryTool
from support.clock import FakeClock
from support.git_calls import git_calls
from support.memory import block_commits, git_state, tree_bytes, write_file
from support.secrets import PLANTED_SECRETS, SURFACE_SECRETS

HUMAN = "system/human.md"


@pytest.fixture
def ctx(memory_repo):
    return ToolContext(cwd=memory_repo.path, clock=FakeClock(), memory_dir=memory_repo.path)


def _git(root, *args):
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def _call(ctx, **args):
    return MemoryTool().run(args, ctx)


def test_memory_tool_spec_is_lean_and_valid():
    tool = MemoryTool()
    assert tool.spec.name == "memory" and tool.kind == "memory"
    schema = tool.spec.parameters
    assert schema["required"] == ["command", "reason"]
    assert set(schema["properties"]["command"]["enum"]) == {
        "view",
        "create",
        "str_replace",
        "insert",
        "delete",
        "rename",
        "update_description",
    }
    size = len(json.dumps(schema)) + len(tool.spec.description)
    assert size < 1400, size  # about 350 tokens of the 6,000-token first request


def test_memory_tool_commits_each_change_with_its_reason(ctx, memory_repo):
    root = memory_repo.path
    steps = [
        {"command": "create", "path": "notes/a.md", "description": "A", "content": "one"},
        {"command": "insert", "path": "notes/a.md", "content": "two"},
        {"command": "str_replace", "path": "notes/a.md", "old_str": "one", "new_str": "1"},
        {"command": "update_description", "path": "notes/a.md", "description": "Notes A"},
        {"command": "rename", "path": "notes/a.md", "new_path": "archive/a.md"},
        {"command": "delete", "path": "archive/a.md"},
    ]
    for number, args in enumerate(steps):
        result = _call(ctx, reason=f"step {number}", **args)
        assert not result.is_error
        assert "(committed " in result.content
        assert not memory_repo.is_dirty()
    subjects = _git(root, "log", "--format=%s").splitlines()
    assert subjects == [f"step {n}" for n in reversed(range(6))] + ["Initialize memory"]
    assert _git(root, "show", "--no-renames", "--name-status", "--format=", "HEAD~1").split() == [
        "A",
        "archive/a.md",
        "D",
        "notes/a.md",
    ]


def test_memory_tool_commits_only_the_touched_paths(ctx, memory_repo):
    write_file(memory_repo.path, "scratch.md", "untracked, not ours")
    _call(ctx, command="insert", path=HUMAN, content="- tea", reason="tea")
    assert _git(memory_repo.path, "show", "--name-only", "--format=", "HEAD").split() == [HUMAN]
    assert memory_repo.changed_paths() == ["scratch.md"]


def test_memory_tool_view(ctx):
    listing = _call(ctx, command="view", reason="look").content
    assert "system/human.md — What I know" in listing
    assert _call(ctx, command="view", path=HUMAN).content.startswith("---\ndescription:")


def test_memory_tool_requires_a_reason(ctx, memory_repo):
    before = tree_bytes(memory_repo.path)
    toolset = Toolset((MemoryTool(),))
    for reason in (None, "", "   "):
        args = {"command": "insert", "path": HUMAN, "content": "x"}
        if reason is not None:
            args["reason"] = reason
        result = execute_tool_call(ToolCall("c1", "memory", json.dumps(args)), toolset, ctx)
        assert result.is_error and result.content.startswith("ToolInputError: ")
        assert "reason" in result.content
    assert tree_bytes(memory_repo.path) == before


@pytest.mark.parametrize(
    "args",
    [
        {"command": "create", "path": "new/deep/a.md", "description": "A", "content": "x"},
        {"command": "str_replace", "path": HUMAN, "old_str": "Nothing yet", "new_str": "Sam"},
        {"command": "insert", "path": HUMAN, "content": "- x"},
        {"command": "delete", "path": HUMAN},
        {"command": "rename", "path": HUMAN, "new_path": "people/h.md"},
        {"command": "update_description", "path": HUMAN, "description": "Who"},
    ],
    ids=lambda a: a["command"],
)
def test_memory_tool_rejected_commit_restores_memory(ctx, memory_repo, args):
    root = memory_repo.path
    block_commits(root)
    before_tree, before_git = tree_bytes(root), git_state(root)
    with pytest.raises(GitError, match=r"main\.lock"):
        _call(ctx, reason="try", **args)
    assert tree_bytes(root) == before_tree
    assert git_state(root) == before_git


def test_memory_tool_refuses_dirty_touched_path_but_not_unrelated_dirt(ctx, memory_repo):
    root = memory_repo.path
    human = (root / HUMAN).read_bytes()
    (root / HUMAN).write_bytes(human + b"hand edit, not committed\n")
    before_tree, before_git = tree_bytes(root), git_state(root)
    with pytest.raises(MemfsError, match="system/human.md has uncommitted changes"):
        _call(ctx, command="insert", path=HUMAN, content="- x", reason="x")
    assert (tree_bytes(root), git_state(root)) == (before_tree, before_git)
    result = _call(ctx, command="create", path="other.md", description="O", reason="o")
    assert not result.is_error


def test_memory_tool_refuses_during_an_unfinished_merge(ctx, memory_repo):
    (memory_repo.path / ".git" / "MERGE_HEAD").write_text(memory_repo.head_sha() + "\n")
    with pytest.raises(MemfsError, match="unfinished git operation"):
        _call(ctx, command="insert", path=HUMAN, content="x", reason="x")


def test_memory_tool_errors_reach_the_model_as_results(ctx, memory_repo):
    before = tree_bytes(memory_repo.path)
    toolset = Toolset((MemoryTool(),))
    cases = [
        ({"command": "str_replace", "path": HUMAN, "old_str": "zzz", "new_str": "a"}, "not found"),
        ({"command": "create", "path": "../x.md", "description": "x"}, "'..'"),
        ({"command": "explode", "path": HUMAN}, "unknown memory command"),
        ({"path": HUMAN}, "'command' is required"),
    ]
    for args, needle in cases:
        call = ToolCall("c1", "memory", json.dumps({**args, "reason": "r"}))
        result = execute_tool_call(call, toolset, ctx)
        assert result.is_error and needle in result.content, result.content
    assert tree_bytes(memory_repo.path) == before


def test_memory_tool_is_denied_in_plan_mode(memory_repo):
    plan = ToolContext(cwd=memory_repo.path, clock=FakeClock(), memory_dir=memory_repo.path,
                       permission_mode="plan")  # fmt: skip
    call = ToolCall("c1", "memory", json.dumps({"command": "view", "reason": "r"}))
    result = execute_tool_call(call, Toolset((MemoryTool(),)), plan)
    assert result.is_error and "PermissionDenied" in result.content


def _all_git_objects(root) -> bytes:
    return subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout


@pytest.mark.parametrize(
    "text", [t for _, t, _ in PLANTED_SECRETS], ids=[i for i, _, _ in PLANTED_SECRETS]
)
def test_memory_tool_secret_gate(ctx, memory_repo, text):
    root = memory_repo.path
    before_tree, before_git = tree_bytes(root), git_state(root)
    attempts = [
        {"command": "create", "path": "k.md", "description": "keys", "content": text},
        {"command": "insert", "path": HUMAN, "content": text},
        {"command": "str_replace", "path": HUMAN, "old_str": "Nothing yet", "new_str": text},
        {"command": "create", "path": "d.md", "description": text.replace("\n", " ")},
    ]
    for args in attempts:
        with pytest.raises(SecretDetectedError) as caught:
            _call(ctx, reason="store it", **args)
        assert text not in str(caught.value)
    assert (tree_bytes(root), git_state(root)) == (before_tree, before_git)
    (secret,) = secret_values(text)
    objects = _all_git_objects(root)
    assert secret.encode() not in objects
    everything = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
    assert secret.encode() not in everything


@pytest.mark.parametrize("text", SURFACE_SECRETS)
def test_memory_tool_refuses_what_people_paste(ctx, memory_repo, text):
    root = memory_repo.path
    before = (tree_bytes(root), git_state(root))
    for args in (
        {"command": "create", "path": "k.md", "description": "keys", "content": text},
        {"command": "str_replace", "path": HUMAN, "old_str": "Nothing yet", "new_str": text},
    ):
        with pytest.raises(SecretDetectedError):
            _call(ctx, reason="store it", **args)
    assert (tree_bytes(root), git_state(root)) == before


def test_an_edit_of_tracked_files_commits_with_one_git_process_after_the_check(ctx, memory_repo):
    # `status` runs when git's files cannot show the path unchanged (memory/gitindex.py): a
    # copied repository's files have new inodes; a file written in the index's own clock tick
    checked = (["commit"], ["status", "commit"])
    with git_calls() as calls:
        _call(ctx, command="insert", path=HUMAN, content="- tea", reason="tea")
    assert calls == ["status", "commit"]  # the copy's stat is not the index's: git is asked
    with git_calls() as calls:
        _call(ctx, command="create", path="notes/n.md", description="N", content="n", reason="n")
    assert calls == ["add", "commit"]  # nowhere in HEAD, the index or the disk; git adds it
    with git_calls() as calls:
        _call(ctx, command="delete", path="notes/n.md", reason="gone")
    assert calls in checked
    (memory_repo.path / ".gitignore").write_text("hidden.md\n")
    write_file(memory_repo.path, "hidden.md", "---\ndescription: h\n---\nx\n")
    with pytest.raises(GitError, match="ignored"):  # as before: git refuses to add it
        _call(ctx, command="insert", path="hidden.md", content="y", reason="y")
    assert (memory_repo.path / "hidden.md").read_text() == "---\ndescription: h\n---\nx\n"
    subjects = _git(memory_repo.path, "log", "--format=%s").splitlines()
    assert subjects[:3] == ["gone", "n", "tea"]
    assert memory_repo.changed_paths() == [".gitignore"]
