"""A sync reads where the two commits stand from git's loose objects when that is plain
(sync/commits.py): the answers equal git's own, and anything less plain goes to git."""

from __future__ import annotations

from pathlib import Path

import pytest

from mini_letta.memory.repo import GitRepo
from mini_letta.sync.commits import MAX_CHAIN, chain_length, loose_kind
from support.git_calls import git_calls
from support.sync import git


def _counts(repo: Path, left: str, right: str) -> tuple[int, int]:
    """git's answer: (commits only `left` has, commits only `right` has)."""
    ahead, behind = git(repo, "rev-list", "--left-right", "--count", f"{left}...{right}").split()
    return int(ahead), int(behind)


def _commit(repo: Path, name: str) -> str:
    (repo / name).write_text(f"{name}\n", encoding="utf-8")
    git(repo, "add", name)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


def test_a_chain_of_loose_commits_is_counted_as_git_counts_it(repo):
    root = _commit(repo, "a")
    tips = [_commit(repo, name) for name in ("b", "c", "d")]
    common = repo / ".git"
    for n, tip in enumerate(tips, 1):
        assert chain_length(common, tip, root) == n == _counts(repo, tip, root)[0]
        assert _counts(repo, tip, root)[1] == 0
    assert chain_length(common, root, root) == 0
    assert chain_length(common, root, tips[-1]) is None  # not an ancestor: git is asked


def test_a_merge_a_packed_object_or_a_long_chain_is_left_to_git(repo):
    base = _commit(repo, "a")
    git(repo, "switch", "-qc", "side")
    side = _commit(repo, "s")
    git(repo, "switch", "-q", "main")
    _commit(repo, "m")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-edit", "side")
    merged = _commit(repo, "after")
    common = repo / ".git"
    assert chain_length(common, merged, base) is None  # a merge on the way
    assert chain_length(common, side, base) == 1
    git(repo, "gc", "-q")  # every object packed
    assert loose_kind(common, side) is None and chain_length(common, side, base) is None
    start = _commit(repo, "start")
    for n in range(MAX_CHAIN + 1):
        tip = _commit(repo, f"n{n}")
    assert chain_length(common, tip, start) is None  # past MAX_CHAIN: git counts
    assert _counts(repo, tip, start) == (MAX_CHAIN + 1, 0)


@pytest.mark.parametrize("kind", ["replace", "packed-replace", "grafts", "shallow"])
def test_history_that_git_may_read_otherwise_is_left_to_git(repo, kind):
    base = _commit(repo, "a")
    tip = _commit(repo, "b")
    other = _commit(repo, "c")
    common = repo / ".git"
    assert chain_length(common, tip, base) == 1
    if kind in ("replace", "packed-replace"):
        git(repo, "replace", tip, other)  # git now reads b's commit as c's
        if kind == "packed-replace":
            git(repo, "pack-refs", "--all")
            assert not list((common / "refs" / "replace").iterdir())
    elif kind == "grafts":
        (common / "info").mkdir(exist_ok=True)
        (common / "info" / "grafts").write_text(f"{tip}\n", encoding="ascii")
    else:
        (common / "shallow").write_text(f"{tip}\n", encoding="ascii")
    assert chain_length(common, tip, base) is None


def test_each_kind_of_loose_object_is_read_from_its_header(repo):
    commit = _commit(repo, "a")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    blob = git(repo, "rev-parse", "HEAD:a")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "-m", "t", "v1")
    tag = git(repo, "rev-parse", "v1")
    common = repo / ".git"
    found = {sha: loose_kind(common, sha) for sha in (commit, tree, blob, tag)}
    assert found == {commit: b"commit", tree: b"tree", blob: b"blob", tag: b"tag"}
    for sha in found:
        assert found[sha].decode() == git(repo, "cat-file", "-t", sha)
    assert loose_kind(common, "0" * 40) is None and loose_kind(common, "../../x") is None
    broken = common / "objects" / blob[:2] / blob[2:]
    broken.chmod(0o644)
    broken.write_bytes(b"not zlib")
    assert loose_kind(common, blob) is None


def test_parents_are_the_lines_right_after_the_tree_as_git_reads_them(repo):
    base = _commit(repo, "a")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    body = f"tree {tree}\nauthor t <t@t> 0 +0000\nparent {base}\ncommitter t <t@t> 0 +0000\n\nodd\n"
    odd = GitRepo(repo).run_bytes(
        "hash-object", "-t", "commit", "-w", "--literally", "--stdin", stdin=body.encode()
    )
    odd = odd.decode().strip()
    assert git(repo, "rev-list", "--count", odd) == "1"  # git sees no parent
    assert chain_length(repo / ".git", odd, base) is None


def test_a_push_and_a_pull_ask_git_nothing_the_loose_objects_answer(machines):
    first, second, _ = machines
    first.remember("system/human.md", "- a fact")
    first.remember("system/human.md", "- another")
    with git_calls() as pushed:
        assert first.sync().pushed
    with git_calls() as pulled:
        assert second.sync().pulled == 2
    for calls in (pushed, pulled):
        assert "rev-parse" not in calls and "rev-list" not in calls, calls
    assert second.head() == first.head()


def test_a_sync_over_packed_objects_asks_git_and_agrees(machines):
    first, second, _ = machines
    first.remember("system/human.md", "- a fact")
    git(first.memory, "gc", "-q")
    with git_calls() as pushed:
        assert first.sync().pushed
    assert "rev-list" in pushed
    second.create("projects/laptop.md", "- from the laptop\n")
    first.create("projects/desk.md", "- from the desk\n")
    first.sync()
    git(second.memory, "gc", "-q")
    outcome = second.sync()  # the fact and the desk's file come; both sides merged
    assert outcome.merged and outcome.pulled == 2 and outcome.pushed
    assert first.sync().pulled == 2  # the laptop's commit and its merge
    assert first.head() == second.head()
