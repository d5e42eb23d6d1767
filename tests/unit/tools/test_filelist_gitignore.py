"""tools/filelist.py agrees with git on what .gitignore leaves out: git's own t0008 setup
(t/t0008-ignores.sh: nested .gitignore files, `!` re-includes, an ignored folder,
.git/info/exclude) and patterns where a hand-made matcher goes wrong (braces, escapes,
trailing spaces, `**`, anchoring, character classes). Git itself is the oracle: the same tree,
`git ls-files --others --exclude-standard` with no user or system config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mini_letta.tools.filelist import list_files

# t0008's setup: the ignore files and the paths its check-ignore tests ask about
T0008_IGNORES = {
    ".gitignore": "one\nignored-*\ntop-level-dir/\n",
    "a/.gitignore": "two*\n*three\n",
    "a/b/.gitignore": (
        "four\nfive\n# this comment should affect the line numbers\nsix\nignored-dir/\n"
        "# and so should this blank line:\n\n!on*\n!two\n"
    ),
    "a/b/ignored-dir/.gitignore": "seven\n",
    ".git/info/exclude": "per-repo\n",
}
T0008_PATHS = [
    "not-ignored", "ignored-and-untracked", "ignored-but-in-index", "one",
    "a/not-ignored", "a/ignored-and-untracked", "a/ignored-but-in-index", "a/one",
    "a/3-three", "a/three-not-this-one", "a/b/one", "a/b/on", "a/b/one one", "a/b/one two",
    'a/b/one"three', "a/b/not-ignored", "a/b/two", "a/b/twooo", "a/b/four", "a/b/six",
    "a/b/ignored-dir/foo", "a/b/ignored-dir/twoooo", "a/b/ignored-dir/seven",
    "per-repo", "a/per-repo", "globaltwo", "a/globaltwo", "b/globaltwo", "c/not-ignored",
    "top-level-dir/x", "a/top-level-dir/y", "top-level-dir-file",
]  # fmt: skip

# Where the old hand-made matcher and git parted ways, and other corners of git's wildmatch.
TRICKY_IGNORES = {
    ".gitignore": (
        "f{a,b}\n"  # braces are literal in git
        "\\#hash\n"  # an escaped # is a pattern, not a comment
        "\\!bang\n"  # an escaped ! is a literal !
        "trail\\ \n"  # an escaped trailing space is kept
        "spaces   \n"  # unescaped trailing spaces are not
        "/anchored\n"
        "deep/**/leaf\n"
        "**/anywhere\n"
        "x[0-9]\n"
        "y[!a]\n"
        "*.log\n"
        "!keep.log\n"
        "logs/\n"
        "!logs/kept.txt\n"  # a file in an ignored folder cannot be re-included
        "mid/*.tmp\n"
    ),
}
TRICKY_PATHS = [
    "f{a,b}", "fa", "fb", "#hash", "!bang", "bang", "trail ", "trail", "spaces",
    "anchored", "sub/anchored", "deep/leaf", "deep/a/b/leaf", "other/deep/leaf",
    "anywhere", "a/b/anywhere", "x1", "xa", "ya", "yb", "app.log", "keep.log", "sub/keep.log",
    "logs/kept.txt", "logs/other.txt", "mid/a.tmp", "mid/sub/a.tmp", "top.tmp",
]  # fmt: skip


def _tree(root: Path, ignores: dict[str, str], paths: list[str]) -> None:
    (root / ".git" / "info").mkdir(parents=True)
    for rel, text in ignores.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")


def _git_listing(root: Path) -> set[str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(root),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env, timeout=30)
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"],
        check=True,
        env=env,
        capture_output=True,
        timeout=30,
    ).stdout
    return {path for path in os.fsdecode(out).split("\0") if path}


@pytest.mark.parametrize(
    ("ignores", "paths"),
    [(T0008_IGNORES, T0008_PATHS), (TRICKY_IGNORES, TRICKY_PATHS)],
    ids=["t0008", "tricky"],
)
def test_the_listing_is_what_git_lists(tmp_path, ignores, paths):
    _tree(tmp_path, ignores, paths)
    ours = set(list_files(tmp_path).paths)
    assert ours == _git_listing(tmp_path)


def test_t0008_answers_as_its_check_ignore_tests_expect(tmp_path):
    _tree(tmp_path, T0008_IGNORES, T0008_PATHS)
    listed = set(list_files(tmp_path).paths)
    for kept in ("a/b/one", "a/b/on", 'a/b/one"three', "a/b/two", "not-ignored", "a/3-thre"[:0]):
        assert not kept or kept in listed, kept
    for gone in ("one", "a/one", "a/b/twooo", "a/3-three", "per-repo", "a/b/ignored-dir/foo"):
        assert gone not in listed, gone


def test_a_walk_from_a_subfolder_applies_the_rules_above_it(tmp_path):
    _tree(tmp_path, T0008_IGNORES, T0008_PATHS)
    listed = set(list_files(tmp_path / "a" / "b").paths)
    assert "twooo" not in listed and "two" in listed and "one" in listed
    assert not any(path.startswith("ignored-dir/") for path in listed)
