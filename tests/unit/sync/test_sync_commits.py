"""A sync reads where the two commits stand from git's loose objects when that is plain
(sync/commits.py): the answers equal git's own, and anything less plain goes to git.

The histories here are written as loose objects by `_write` (git's documented format: a header
`<kind> <size>\\0`, the body, zlib-compressed, named by the sha-1 of both), not by a `git commit`
per commit; git itself is asked only for the answers the reader must agree with."""

from __future__ import annotations

import hashlib
import subprocess
import zlib
from pathlib import Path

import pytest

from mini_letta.sync.commits import MAX_CHAIN, chain_length, loose_kind
from support.git_calls import git_calls
from support.sync import git

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _write(repo: Path, kind: str, body: bytes) -> str:
    data = f"{kind} {len(body)}\0".encode() + body
    sha = hashlib.sha1(data).hexdigest()
    path = repo / ".git" / "objects" / sha[:2] / sha[2:]
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(zlib.compress(data))
    return sha


def _commit(repo: Path, *parents: str, message: str = "c", tree: str = EMPTY_TREE) -> str:
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    lines += ["author t <t@t> 0 +0000", "committer t <t@t> 0 +0000", "", message, ""]
    return _write(repo, "commit", "\n".join(lines).encode())


def _chain(repo: Path, base: str, length: int) -> list[str]:
    shas = [base]
    for n in range(length):
        shas.append(_commit(repo, shas[-1], message=f"c{n}"))
    return shas[1:]


def _counts(repo: Path, *pairs: tuple[str, str]) -> list[tuple[int, int]]:
    """git's answers, one process each: (commits only the left has, only the right has)."""
    found = []
    for left, right in pairs:
        counts = git(repo, "rev-list", "--left-right", "--count", f"{left}...{right}").split()
        found.append((int(counts[0]), int(counts[1])))
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    _write(path, "tree", b"")
    return path


def test_a_chain_of_loose_commits_is_counted_as_git_counts_it(repo):
    root = _commit(repo, message="root")
    tips = _chain(repo, root, 3)
    common = repo / ".git"
    assert [chain_length(common, tip, root) for tip in tips] == [1, 2, 3]
    assert _counts(repo, *((tip, root) for tip in tips)) == [(1, 0), (2, 0), (3, 0)]
    assert chain_length(common, root, root) == 0
    assert chain_length(common, root, tips[-1]) is None  # not an ancestor: git is asked


def test_a_merge_a_packed_object_or_a_long_chain_is_left_to_git(repo):
    common = repo / ".git"
    base = _commit(repo, message="base")
    (side,) = _chain(repo, base, 1)
    (main,) = _chain(repo, _commit(repo, base, message="m"), 1)
    merged = _commit(repo, main, side, message="merge")
    after = _commit(repo, merged, message="after")
    assert chain_length(common, after, merged) == 1
    assert chain_length(common, after, base) is None  # a merge on the way
    long = _chain(repo, after, MAX_CHAIN + 1)
    assert chain_length(common, long[-2], after) == MAX_CHAIN  # the longest it walks
    assert chain_length(common, long[-1], after) is None  # one more: git counts
    assert _counts(repo, (long[-1], after)) == [(MAX_CHAIN + 1, 0)]
    git(repo, "update-ref", "refs/heads/main", long[-1])
    git(repo, "gc", "-q")  # every object packed
    assert loose_kind(common, side) is None and chain_length(common, side, base) is None


@pytest.mark.parametrize("kind", ["replace", "packed-replace", "grafts", "shallow"])
def test_history_that_git_may_read_otherwise_is_left_to_git(repo, kind):
    base = _commit(repo, message="a")
    tip, other = _chain(repo, base, 2)
    common = repo / ".git"
    assert chain_length(common, tip, base) == 1
    if kind in ("replace", "packed-replace"):
        git(repo, "replace", tip, other)  # git now reads the tip's commit as the other's
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
    commit = _commit(repo)
    blob = _write(repo, "blob", b"- a fact\n")
    tag = _write(repo, "tag", f"object {commit}\ntype commit\ntag v1\n\nv1\n".encode())
    found = {sha: loose_kind(repo / ".git", sha) for sha in (commit, EMPTY_TREE, blob, tag)}
    assert found == {commit: b"commit", EMPTY_TREE: b"tree", blob: b"blob", tag: b"tag"}
    listing = "".join(f"{sha}\n" for sha in found)
    checked = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check"],
        input=listing,
        capture_output=True,
        text=True,
        check=True,
    ).stdout  # git reads the same kinds
    assert [line.split()[1] for line in checked.splitlines()] == [
        k.decode() for k in found.values()
    ]
    assert loose_kind(repo / ".git", "0" * 40) is None
    assert loose_kind(repo / ".git", "../../x") is None
    broken = repo / ".git" / "objects" / blob[:2] / blob[2:]
    broken.write_bytes(b"not zlib")
    assert loose_kind(repo / ".git", blob) is None


def test_parents_are_the_lines_right_after_the_tree_as_git_reads_them(repo):
    base = _commit(repo, message="base")
    body = (
        f"tree {EMPTY_TREE}\nauthor t <t@t> 0 +0000\nparent {base}\n"
        "committer t <t@t> 0 +0000\n\nodd\n"
    )
    odd = _write(repo, "commit", body.encode())
    assert git(repo, "rev-list", "--count", odd) == "1"  # git sees no parent
    assert chain_length(repo / ".git", odd, base) is None


def test_a_push_over_packed_objects_asks_git_and_agrees(machines):
    first, second, history = machines
    first.remember("system/human.md", "- a fact")
    git(first.memory, "gc", "-q")  # the new commit and the remote's last packed: git counts
    with git_calls() as pushed:
        assert first.sync().pushed
    assert "rev-parse" in pushed and "rev-list" in pushed, pushed
    history.check()
    assert history.seen[-1] == first.head()
