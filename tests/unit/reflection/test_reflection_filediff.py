"""The gate's diff made from the files agrees with `git diff --no-renames -U0`, or says "ask git".

Every check puts many (before, after) pairs in one repository as files, commits both sides
and compares each file's `FileDiff` with what `parse_diff` reads from one real `git diff`.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.gate.filediff import FileState, diff_files
from mini_letta.reflection.gate.hunks import parse_diff
from mini_letta.reflection.run.tools import RunProvenance, reflection_tools
from mini_letta.reflection.run.worktree import (
    create_worktree,
    known_subjects,
    logged_diff,
    remove_worktree,
)
from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
from support.reflection_kit import git, tool_call

HUMAN = "system/human.md"
# Few distinct lines, so that repeats (where git may slide a hunk) and shared lines are common.
LINES = [
    b"- a\n",
    b"- b\n",
    b"\n",
    b"  - c\n",
    b"---\n",
    b"# h\n",
    b"- tabs\r\n",
    "- 喜欢\n".encode(),
]


def _shape(diffs):
    return [
        (d.path, d.status, [(h.old_start, h.new_start, h.removed, h.added) for h in d.hunks])
        for d in diffs
    ]


def _git_diffs(root: Path, pairs: dict[str, tuple[bytes | None, bytes | None]]) -> dict:
    """Each path's FileDiff as git reports it, both sides committed in one repository."""
    git(root, "init", "-q", "-b", "main")
    for side in (0, 1):
        for path, states in pairs.items():
            file = root / path
            if states[side] is None:
                file.unlink(missing_ok=True)
            else:
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_bytes(states[side])
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", f"side {side}")
    out = GitRepo(root).run("diff", "--no-renames", "-U0", "--no-color", "HEAD~", "HEAD")
    return {d.path: d for d in parse_diff(out)}  # read as the gate reads it: CR kept


def _mine(path: str, before: bytes | None, after: bytes | None):
    def state(data: bytes | None) -> FileState:
        return None if data is None else (data, False)

    return diff_files({path: (state(before), state(after))})


def _random_file(rng: random.Random) -> bytes | None:
    if rng.random() < 0.1:
        return None
    data = b"".join(rng.choice(LINES) for _ in range(rng.randrange(0, 8)))
    return data[:-1] if data and rng.random() < 0.3 else data  # no line feed at the end


def _changed(rng: random.Random, data: bytes | None) -> bytes | None:
    if data is None or rng.random() < 0.1:
        return _random_file(rng)
    lines = data.split(b"\n")
    for _ in range(rng.randrange(0, 3)):
        at = rng.randrange(0, len(lines) + 1)
        roll = rng.random()
        if roll < 0.4:
            lines.insert(at, rng.choice(LINES).rstrip(b"\n"))
        elif lines and roll < 0.7:
            lines.pop(min(at, len(lines) - 1))
        elif lines:
            lines[min(at, len(lines) - 1)] = rng.choice(LINES).rstrip(b"\n") + b" new"
    return b"\n".join(lines)


def test_random_edits_agree_with_git_or_ask_it(tmp_path):
    rng = random.Random(22)
    pairs = {}
    for number in range(600):
        before = _random_file(rng)
        pairs[f"notes/f{number:04d}.md"] = (before, _changed(rng, before))
    theirs = _git_diffs(tmp_path, pairs)
    sure = 0
    for path, (before, after) in pairs.items():
        mine = _mine(path, before, after)
        if mine is not None:
            sure += 1
            assert _shape(mine) == _shape([theirs[path]] if path in theirs else []), path
    assert sure > 400  # most edits are certain even among so many repeated lines


CERTAIN = {
    "append.md": (b"---\ndescription: d\n---\n- a\n", b"---\ndescription: d\n---\n- a\n- b\n"),
    "no-eol.md": (b"- a\n- b", b"- a\n- b\n- c\n"),  # the last line gains its line feed
    "crlf.md": (b"- a\r\n- b\r\n", b"- a\r\n- B\r\n"),
    "cjk.md": ("- 我喜欢 tabs\n".encode(), "- 我喜欢 spaces\n- 用 pnpm\n".encode()),
    "latin1.md": (b"- caf\xe9\n", b"- caf\xe9\n- th\xe9\n"),  # not UTF-8: replaced as git's is
    "added.md": (None, b"- new\n"),
    "added-empty.md": (None, b""),
    "deleted.md": (b"- old\n- gone\n", None),
    "deleted-empty.md": (b"", None),
    "emptied.md": (b"- a\n", b""),
    "same.md": (b"- a\n", b"- a\n"),
    "sub/dir/deep.md": (b"# h\n- a\n", b"# h\n"),
    "sub-dir.md": (b"- x\n", b"- y\n"),  # sorts before sub/ as git's order does
}
UNSURE = {
    "slides.md": (b"- a\n", b"- a\n- a\n"),  # the added line could be either one
    "shared.md": (b"- a\n- b\n- c\n", b"- c\n- b\n- a\n"),  # a line kept inside the change
    "binary.md": (b"- a\n", b"- a\0\n"),
}


def test_chosen_edits_agree_with_git_and_the_doubtful_ask_it(tmp_path):
    theirs = _git_diffs(tmp_path, {**CERTAIN, **UNSURE})
    mine = diff_files(
        {p: (None if b is None else (b, False), None if a is None else (a, False))
         for p, (b, a) in CERTAIN.items()}
    )  # fmt: skip
    assert mine is not None
    assert _shape(mine) == _shape([d for path, d in theirs.items() if path in CERTAIN])
    assert "sub-dir.md" in theirs and "same.md" not in theirs  # in git's own order
    for path, (before, after) in UNSURE.items():
        assert _mine(path, before, after) is None, path
    assert diff_files({"mode.md": ((b"- a\n", False), (b"- b\n", True))}) is None
    assert diff_files({'quote"d.md': (None, (b"- a\n", False))}) is None
    assert diff_files({"x b/y.md": (None, (b"- a\n", False))}) is None


@pytest.fixture
def tools(memory_repo, tmp_path, clock):
    worktree = create_worktree(
        memory_repo, tmp_path / "memory-worktrees", "20261008160658-00000050"
    )
    provenance = RunProvenance(trailers=("Reflection-Run: x",))
    context = ToolContext(cwd=worktree.path, clock=clock, memory_dir=worktree.path)
    toolset = Toolset(reflection_tools(provenance))

    def call(name, **arguments):
        result = execute_tool_call(tool_call(name, **arguments), toolset, context)
        assert not result.is_error, result.content
        return result

    yield worktree, provenance.worktree, call
    remove_worktree(memory_repo, worktree)


def _git_diff_of(memory_repo, worktree):
    out = memory_repo.run(
        "diff", "--no-renames", "-U0", "--no-color", worktree.base, worktree.tip()
    )
    return _shape(parse_diff(out))


def test_a_run_through_the_tools_has_gits_diff_without_git(tools, memory_repo):
    worktree, log, call = tools
    call("memory", command="insert", path=HUMAN, content="- 喜欢 tabs")
    call("memory", command="create", path="reference/pnpm.md", description="d", content="- pnpm")
    call("memory_commit", message="first")
    call("memory", command="rename", path="reference/pnpm.md", new_path="reference/tools.md")
    call("memory", command="str_replace", path=HUMAN, old_str="- 喜欢 tabs", new_str="- tabs")
    call("memory_commit", message="second")
    assert known_subjects(worktree, log) == ["second", "first"]
    made = logged_diff(worktree, log)
    assert made is not None and _shape(made) == _git_diff_of(memory_repo, worktree)
    assert {d.path for d in made} == {HUMAN, "reference/tools.md"}  # pnpm.md came and went


def test_attributes_config_or_a_hand_made_change_leave_the_diff_to_git(tools, memory_repo):
    worktree, log, call = tools
    call("memory", command="create", path="reference/new.md", description="d", content="- n")
    (worktree.path / "reference" / "by-hand.md").write_text("---\ndescription: x\n---\n- x\n")
    call("memory_commit", message="one")  # a new file: `git add -A` takes the other one too
    assert logged_diff(worktree, log) is None  # the commit holds a file no edit looked at
    git(worktree.path, "reset", "-q", "--hard", worktree.base)
    log.commits.clear()
    call("memory", command="insert", path=HUMAN, content="- spaces")
    call("memory_commit", message="two")
    assert logged_diff(worktree, log) is not None
    attributes = worktree.path / "system" / ".gitattributes"
    attributes.write_text("*.md text eol=crlf\n")  # checkout would convert the files
    assert logged_diff(worktree, log) is None
    attributes.unlink()
    git(memory_repo.path, "config", "diff.algorithm", "patience")
    assert logged_diff(worktree, log) is None
    git(memory_repo.path, "config", "--unset", "diff.algorithm")
    assert logged_diff(worktree, log) is not None
    call("memory", command="insert", path=HUMAN, content="- left uncommitted")
    assert logged_diff(worktree, log) is None  # an edit after the last commit


def test_edits_of_tracked_files_commit_with_one_git_process(tools, memory_repo):
    """`git commit -- paths` for files git tracks: the same commit and names as `add -A -v`
    then `commit`; a new file, or one a commit deleted, goes back to git's `add`."""
    from support.git_calls import git_calls

    worktree, log, call = tools
    call("memory", command="insert", path=HUMAN, content="- 喜欢 tabs")
    call("memory", command="update_description", path="system/persona.md", description="new")
    with git_calls() as calls:
        said = call("memory_commit", message="tracked only").content
    assert calls == ["commit"]
    assert "2 file(s) (system/human.md, system/persona.md)" in said
    named = git(worktree.path, "show", "--name-status", "--format=", "HEAD").split()
    assert named == ["M", HUMAN, "M", "system/persona.md"] and not worktree.repo.changed_paths()
    call("memory", command="delete", path="system/persona.md")
    call("memory", command="create", path="reference/new.md", description="d", content="- n")
    with git_calls() as calls:
        call("memory_commit", message="a new file")
    assert calls == ["add", "commit"]
    named = git(worktree.path, "show", "--name-status", "--format=", "HEAD").split()
    assert named == ["A", "reference/new.md", "D", "system/persona.md"]
    call("memory", command="create", path="system/persona.md", description="d", content="- p")
    with git_calls() as calls:
        call("memory_commit", message="back again")  # deleted by the last commit: untracked
    assert calls == ["add", "commit"] and not worktree.repo.changed_paths()
