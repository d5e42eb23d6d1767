"""Memory path lengths are checked up front: a clear tool error, never ENAMETOOLONG."""

from __future__ import annotations

import json

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import MemoryEditError
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
from mini_letta.tools.memory_tool import MemoryTool
from support.clock import FakeClock
from support.memory import tree_bytes


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("notes/" + "a" * 300 + ".md", "longer than 255 bytes"),
        ("notes/" + "记" * 90 + ".md", "longer than 255 bytes"),  # 270 bytes in UTF-8
        ("/".join(["d" * 200] * 6) + "/x.md", "longer than 1024 bytes"),
    ],
    ids=["300-ascii", "wide-utf8", "deep"],
)
def test_too_long_paths_are_refused_by_name(tmp_path, path, needle):
    with pytest.raises(MemoryEditError, match=needle):
        resolve_memory_path(tmp_path, path)


def test_the_longest_allowed_name_is_accepted(tmp_path):
    name = "notes/" + "a" * 252 + ".md"  # a 255-byte file name
    assert resolve_memory_path(tmp_path, name) == name


def test_a_300_character_name_is_a_tool_error_and_changes_nothing(memory_repo):
    ctx = ToolContext(cwd=memory_repo.path, clock=FakeClock(), memory_dir=memory_repo.path)
    before = tree_bytes(memory_repo.path)
    args = {"command": "create", "path": "a" * 300 + ".md", "description": "d", "reason": "r"}
    result = execute_tool_call(
        ToolCall("c1", "memory", json.dumps(args)), Toolset((MemoryTool(),)), ctx
    )
    assert result.is_error and "255 bytes" in result.content
    assert "Errno" not in result.content and "OSError" not in result.content
    assert tree_bytes(memory_repo.path) == before


def test_a_path_through_a_link_is_refused_as_resolving_it_would_say(tmp_path):
    """The link check reads each existing part once; it answers as resolving the whole path
    and comparing would (a link to a folder, to a file, dangling, a loop, one pointing back
    inside, a file where a folder would be, nothing there yet)."""
    root = tmp_path / "memory"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "real.md").write_text("x")
    (root / "plain.md").write_text("x")
    (root / "away").symlink_to(tmp_path)
    (root / "notes" / "file-link.md").symlink_to(root / "notes" / "real.md")
    (root / "notes" / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (root / "loop").symlink_to(root / "loop")
    (root / "back").symlink_to(root / "notes")
    cases = {
        "away/x.md": True,
        "notes/file-link.md": True,
        "notes/dangling.md": True,
        "back/real.md": True,
        "notes/real.md": False,
        "plain.md/below.md": False,
        "new/folder/x.md": False,
        "notes/new.md": False,
    }
    wrong = []
    for path, through_link in cases.items():
        base = root.resolve()
        old_rule = (base / path).resolve() != base.joinpath(*path.split("/"))
        try:
            resolve_memory_path(root, path)
            refused = False
        except MemoryEditError as exc:
            refused = "symlink" in str(exc)
        if refused != through_link or old_rule != through_link:
            wrong.append((path, refused, old_rule))
    assert not wrong
    with pytest.raises(MemoryEditError, match="symlink"):
        resolve_memory_path(root, "loop/x.md")  # resolve() itself raises on a loop


def test_a_path_through_a_link_below_memory_is_refused_and_a_link_above_it_is_not(tmp_path):
    """Each segment below the memory folder is looked at (a folder link, a file link, a
    dangling link, a link loop); links above the memory folder, missing segments and a file
    where a folder would be are not the rule's business."""
    real = tmp_path / "real"
    (real / "system").mkdir(parents=True)
    (real / "system" / "human.md").write_text("x")
    (real / "notes.md").write_text("x")
    (real / "folder-link").symlink_to(real / "system")
    (real / "file-link.md").symlink_to(real / "notes.md")
    (real / "dangling.md").symlink_to(real / "gone.md")
    (real / "loop.md").symlink_to(real / "loop.md")
    via_link = tmp_path / "via-link"
    via_link.symlink_to(real)
    refused = ["folder-link/human.md", "file-link.md", "dangling.md", "loop.md", "loop.md/x.md"]
    allowed = ["system/human.md", "system/new.md", "new/deeper/x.md", "notes.md/x.md"]
    for root in (real, via_link):
        wrong = []
        for path in refused:
            try:
                resolve_memory_path(root, path)
                wrong.append(f"{root.name}: {path} accepted")
            except MemoryEditError as exc:
                if "symlink" not in str(exc):
                    wrong.append(f"{root.name}: {path}: {exc}")
        wrong += [f"{root.name}: {p} refused" for p in allowed if resolve_memory_path(root, p) != p]
        assert wrong == []
