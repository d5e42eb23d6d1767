"""Grep and Glob over real folders, with .gitignore respected in and outside git repos."""

from __future__ import annotations

import subprocess

import pytest

from mini_letta.tools.filelist import _ignored, _parse_gitignore, glob_to_regex, list_files
from support.tools import call_tool, make_context


def _tree(root):
    files = {
        "src/app.py": "import os\nTODO = 'fix me'\n",
        "src/util/helpers.py": "def todo():\n    return 'todo'\n",
        "README.md": "# Project\nTODO: docs\n",
        "build/out.py": "TODO generated\n",
        "notes.log": "TODO in a log\n",
        "keep.log": "TODO kept log\n",
        "img.bin": b"TODO\x00\x01binary",
        ".gitignore": "build/\n*.log\n!keep.log\n",
    }
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture(params=["git", "plain"])
def ctx(request, project, clock):
    _tree(project)
    if request.param == "git":
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    return make_context(project, clock)


def test_grep_finds_matches_and_skips_ignored_and_binary_files(ctx):
    result = call_tool("Grep", {"pattern": "TODO"}, ctx)
    lines = sorted(result.content.splitlines())
    assert lines == [
        "README.md:2: TODO: docs",
        "keep.log:1: TODO kept log",
        "src/app.py:2: TODO = 'fix me'",
    ]


def test_grep_ignore_case_glob_and_path(ctx):
    result = call_tool(
        "Grep", {"pattern": "todo", "ignore_case": True, "glob": "*.py", "path": "src"}, ctx
    )
    assert sorted(result.content.splitlines()) == [
        "src/app.py:2: TODO = 'fix me'",
        "src/util/helpers.py:1: def todo():",
        "src/util/helpers.py:2: return 'todo'",
    ]


def test_grep_single_file_and_no_matches(ctx):
    assert (
        call_tool("Grep", {"pattern": "import", "path": "src/app.py"}, ctx).content
        == "src/app.py:1: import os"
    )
    assert (
        call_tool("Grep", {"pattern": "nothing-here"}, ctx).content
        == "No matches for 'nothing-here'."
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"pattern": "("}, "not a valid regular expression"),
        ({"pattern": "x", "path": "../"}, "outside the working directory"),
        ({"pattern": "x", "path": "nope"}, "does not exist"),
        ({"pattern": "x", "ignore_case": "y"}, "'ignore_case' must be boolean"),
    ],
    ids=["bad-regex", "outside", "missing", "flag-type"],
)
def test_grep_refusals(ctx, args, needle):
    result = call_tool("Grep", args, ctx)
    assert result.is_error and needle in result.content


def test_glob_patterns_respect_gitignore(ctx):
    assert call_tool("Glob", {"pattern": "**/*.py"}, ctx).content.splitlines() == [
        "src/app.py",
        "src/util/helpers.py",
    ]
    assert call_tool("Glob", {"pattern": "*.log"}, ctx).content == "keep.log"
    assert call_tool("Glob", {"pattern": "*.py", "path": "src"}, ctx).content == "src/app.py"
    assert call_tool("Glob", {"pattern": "*.rs"}, ctx).content == "No files match '*.rs'."


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.py", ["a.py"], ["d/a.py", "a.pyc"]),
        ("**/*.py", ["a.py", "d/e/a.py"], ["a.txt"]),
        ("src/**", ["src/a", "src/b/c"], ["other/src/a"]),
        ("?.md", ["a.md"], ["ab.md"]),
        ("[ab].txt", ["a.txt", "b.txt"], ["c.txt"]),
        ("[!ab].txt", ["c.txt"], ["a.txt"]),
        ("*.{js,ts}", ["x.js", "x.ts"], ["x.py"]),
        ("a+b.txt", ["a+b.txt"], ["aab.txt"]),
    ],
    ids=[
        "star",
        "globstar",
        "trailing-globstar",
        "question",
        "class",
        "negated-class",
        "braces",
        "escaped",
    ],
)
def test_glob_to_regex(pattern, matches, misses):
    regex = glob_to_regex(pattern)
    assert all(regex.match(path) for path in matches)
    assert not any(regex.match(path) for path in misses)


@pytest.mark.parametrize(
    ("rules", "path", "is_dir", "ignored"),
    [
        ("*.log", "deep/x.log", False, True),
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "sub/top.txt", False, False),
        ("build/", "build", True, True),
        ("build/", "build", False, False),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("docs/*.md", "docs/a.md", False, True),
        ("docs/*.md", "docs/sub/a.md", False, False),
        ("# comment\n\n", "x", False, False),
    ],
    ids=[
        "basename-anywhere",
        "anchored",
        "anchored-not-deep",
        "dir-only",
        "dir-only-file",
        "negation",
        "slash-pattern",
        "slash-not-deep",
        "comments",
    ],
)
def test_gitignore_matcher(rules, path, is_dir, ignored):
    assert _ignored(path, is_dir, _parse_gitignore(rules, "")) is ignored


def test_nested_gitignore_applies_below_its_folder_only(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / ".gitignore").write_text("*.tmp\n")
    for rel in ("a/x.tmp", "b/x.tmp", "a/keep.txt"):
        (tmp_path / rel).write_text("x")
    assert list_files(tmp_path).paths == ("a/.gitignore", "a/keep.txt", "b/x.tmp")


def test_a_subfolder_listing_keeps_the_rules_of_the_folders_above(tmp_path):
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("*.secret\n")
    (tmp_path / ".gitignore").write_text("*.log\n/top-only.txt\n")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / ".gitignore").write_text("b/gen/\n")
    for rel in ("a/b/x.log", "a/b/k.secret", "a/b/keep.py", "a/b/gen/out.py", "a/b/top-only.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert list_files(tmp_path / "a" / "b").paths == ("keep.py", "top-only.txt")
    assert list_files(tmp_path).paths == (
        ".gitignore",
        "a/.gitignore",
        "a/b/keep.py",
        "a/b/top-only.txt",
    )
