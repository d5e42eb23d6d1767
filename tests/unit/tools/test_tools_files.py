"""Read, Write and Edit on real files: ranges, caps, binary refusal, exact edits, confinement."""

from __future__ import annotations

import os

import pytest

from support.tools import call_tool, make_context


@pytest.fixture
def ctx(project, clock, tmp_path):
    memory = tmp_path / "memory"
    (memory / "system").mkdir(parents=True)
    (memory / "system" / "human.md").write_text("---\ndescription: x\n---\nlikes tabs\n")
    return make_context(project, clock, memory_dir=memory)


def _lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def test_read_numbers_lines(ctx, project):
    (project / "a.txt").write_text("alpha\nbeta\n")
    result = call_tool("Read", {"path": "a.txt"}, ctx)
    assert not result.is_error
    assert result.content == "     1\talpha\n     2\tbeta"


def test_read_line_range_says_where_to_continue(ctx, project):
    (project / "big.txt").write_text(_lines(50))
    result = call_tool("Read", {"path": "big.txt", "offset": 10, "limit": 3}, ctx)
    assert result.content.splitlines()[:3] == [
        "    10\tline 10",
        "    11\tline 11",
        "    12\tline 12",
    ]
    assert "continue with offset=13" in result.content


def test_read_is_capped_by_the_output_cap(project, clock):
    ctx = make_context(project, clock, output_cap=2000)
    (project / "big.txt").write_text(_lines(5000))
    result = call_tool("Read", {"path": "big.txt"}, ctx)
    assert len(result.content) <= 2000 and "more follow" in result.content


def test_read_truncates_very_long_lines(ctx, project):
    (project / "wide.txt").write_text("x" * 10_000 + "\n")
    assert "[line truncated]" in call_tool("Read", {"path": "wide.txt"}, ctx).content


@pytest.mark.parametrize(
    ("setup", "args", "needle"),
    [
        (
            lambda p: (p / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00"),
            {"path": "img.png"},
            "BinaryFileError",
        ),
        (lambda p: None, {"path": "missing.txt"}, "MissingFileError: missing.txt does not exist"),
        (lambda p: (p / "sub").mkdir(), {"path": "sub"}, "is a directory"),
        (lambda p: (p / "e.txt").write_text("a\n"), {"path": "e.txt", "offset": 5}, "past the end"),
        (lambda p: None, {"path": "../outside.txt"}, "PathRefusedError"),
        (lambda p: None, {"path": "/etc/passwd"}, "outside the working directory"),
        (lambda p: None, {"path": 5}, "'path' must be a string"),
        (lambda p: None, {}, "'path' is required"),
        (
            lambda p: (p / "e.txt").write_text("a\n"),
            {"path": "e.txt", "limit": "ten"},
            "'limit' must be an integer",
        ),
        (lambda p: (p / "e.txt").write_text("a\n"), {"path": "e.txt", "offset": 0}, "at least 1"),
    ],
    ids=[
        "binary",
        "missing",
        "directory",
        "offset-past-end",
        "dotdot",
        "absolute",
        "path-type",
        "no-path",
        "limit-type",
        "offset-zero",
    ],
)
def test_read_refusals_are_clear_results(ctx, project, setup, args, needle):
    setup(project)
    result = call_tool("Read", args, ctx)
    assert result.is_error and needle in result.content


def test_read_empty_file(ctx, project):
    (project / "empty.txt").write_text("")
    result = call_tool("Read", {"path": "empty.txt"}, ctx)
    assert not result.is_error and "empty" in result.content


def test_symlink_out_of_the_project_is_refused(ctx, project, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    os.symlink(secret, project / "link.txt")
    result = call_tool("Read", {"path": "link.txt"}, ctx)
    assert result.is_error and "outside the working directory" in result.content
    assert "top secret" not in result.content


def test_memory_is_readable_but_not_editable_by_file_tools(ctx):
    human = str(ctx.memory_dir / "system" / "human.md")
    assert "likes tabs" in call_tool("Read", {"path": human}, ctx).content
    result = call_tool("Write", {"path": human, "content": "x"}, ctx)
    assert result.is_error and "memory tool" in result.content
    edit = call_tool("Edit", {"path": human, "old_string": "tabs", "new_string": "spaces"}, ctx)
    assert edit.is_error and "likes tabs" in (ctx.memory_dir / "system" / "human.md").read_text()


def test_write_creates_parents_and_reports(ctx, project):
    result = call_tool("Write", {"path": "src/new/mod.py", "content": "a = 1\nb = 2\n"}, ctx)
    assert result.content == "Created src/new/mod.py (2 lines, 12 bytes)"
    assert (project / "src" / "new" / "mod.py").read_text() == "a = 1\nb = 2\n"
    again = call_tool("Write", {"path": "src/new/mod.py", "content": ""}, ctx)
    assert again.content.startswith("Overwrote") and (project / "src/new/mod.py").read_text() == ""


def test_write_refuses_outside_and_directories(ctx, project):
    (project / "d").mkdir()
    assert "is a directory" in call_tool("Write", {"path": "d", "content": "x"}, ctx).content
    outside = call_tool("Write", {"path": "../escape.txt", "content": "x"}, ctx)
    assert outside.is_error and not (project.parent / "escape.txt").exists()


def test_edit_replaces_a_unique_match(ctx, project):
    (project / "m.py").write_text("def f():\n    return 1\n")
    result = call_tool(
        "Edit", {"path": "m.py", "old_string": "return 1", "new_string": "return 2"}, ctx
    )
    assert result.content == "Edited m.py: replaced 1 occurrence at line 2"
    assert (project / "m.py").read_text() == "def f():\n    return 2\n"


def test_edit_ambiguous_match_needs_replace_all(ctx, project):
    (project / "m.py").write_text("x = 1\nx = 1\n")
    args = {"path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}
    refused = call_tool("Edit", args, ctx)
    assert refused.is_error and "occurs 2 times" in refused.content
    assert (project / "m.py").read_text() == "x = 1\nx = 1\n"
    done = call_tool("Edit", {**args, "replace_all": True}, ctx)
    assert "2 occurrences" in done.content and (project / "m.py").read_text() == "x = 2\nx = 2\n"


def test_edit_keeps_crlf_line_endings(ctx, project):
    (project / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = call_tool(
        "Edit", {"path": "w.txt", "old_string": "one\ntwo", "new_string": "1\n2"}, ctx
    )
    assert not result.is_error
    assert (project / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


@pytest.mark.parametrize(
    ("content", "args", "needle"),
    [
        (b"abc\n", {"old_string": "zzz", "new_string": "y"}, "was not found"),
        (b"abc\n", {"old_string": "abc", "new_string": "abc"}, "are the same"),
        (b"abc\n", {"old_string": "", "new_string": "y"}, "must not be empty"),
        (b"a\x00b", {"old_string": "a", "new_string": "y"}, "binary"),
        (b"caf\xe9\n", {"old_string": "caf", "new_string": "y"}, "not UTF-8"),
        (
            b"abc\n",
            {"old_string": "abc", "new_string": "y", "replace_all": "yes"},
            "'replace_all' must be boolean",
        ),
    ],
    ids=["not-found", "same", "empty-old", "binary", "latin1", "replace-all-type"],
)
def test_edit_refusals_leave_the_file_alone(ctx, project, content, args, needle):
    (project / "f.txt").write_bytes(content)
    result = call_tool("Edit", {"path": "f.txt", **args}, ctx)
    assert result.is_error and needle in result.content
    assert (project / "f.txt").read_bytes() == content
