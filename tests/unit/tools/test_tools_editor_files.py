"""Read, Write and Edit through an editor's fs methods: its buffer is read, its writes shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from mini_letta.structs import replace
from mini_letta.tools.base import EditorFiles
from support.tools import call_tool, make_context


class Editor:
    """Buffers by path; a path it has no buffer for is read from disk, as an editor does."""

    def __init__(self, buffers: dict[Path, str]) -> None:
        self.buffers = buffers
        self.reads: list[Path] = []
        self.writes: list[tuple[Path, str]] = []

    def read_text(self, path: Path) -> str:
        self.reads.append(path)
        return self.buffers.get(path) or path.read_text(encoding="utf-8")

    def write_text(self, path: Path, text: str) -> None:
        self.writes.append((path, text))
        self.buffers[path] = text


@pytest.fixture
def setup(project, clock, tmp_path):
    memory = tmp_path / "memory"
    (memory / "system").mkdir(parents=True)
    (memory / "system" / "human.md").write_text("---\ndescription: x\n---\nlikes tabs\n")
    (project / "a.txt").write_text("on disk\n")
    editor = Editor({(project / "a.txt").resolve(): "unsaved change\n"})
    files = EditorFiles(read_text=editor.read_text, write_text=editor.write_text)
    ctx = replace(make_context(project, clock, memory_dir=memory), editor_files=files)
    return ctx, editor, memory


def test_read_sees_the_editors_unsaved_buffer(setup, project):
    ctx, editor, _ = setup
    assert call_tool("Read", {"path": "a.txt"}, ctx).content == "     1\tunsaved change"
    assert editor.reads == [(project / "a.txt").resolve()]


def test_write_and_edit_go_through_the_editor_and_leave_the_disk_to_it(setup, project):
    ctx, editor, _ = setup
    assert not call_tool("Write", {"path": "new/b.txt", "content": "hi\n"}, ctx).is_error
    edit = {"path": "a.txt", "old_string": "unsaved", "new_string": "saved"}
    assert not call_tool("Edit", edit, ctx).is_error
    assert editor.writes == [
        ((project / "new/b.txt").resolve(), "hi\n"),
        ((project / "a.txt").resolve(), "saved change\n"),
    ]
    assert not (project / "new/b.txt").exists()  # the editor writes it (ours does not here)
    assert (project / "a.txt").read_text() == "on disk\n"


def test_files_outside_the_working_directory_are_not_the_editors(setup):
    ctx, editor, memory = setup
    result = call_tool("Read", {"path": str(memory / "system" / "human.md")}, ctx)
    assert "likes tabs" in result.content and editor.reads == []


def test_the_checks_come_first(setup, project):
    ctx, editor, _ = setup
    assert call_tool("Read", {"path": "../outside.txt"}, ctx).is_error
    assert call_tool("Write", {"path": ".git/config", "content": "x"}, ctx).is_error
    assert editor.reads == [] and editor.writes == []
