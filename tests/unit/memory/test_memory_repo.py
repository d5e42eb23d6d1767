"""GitRepo over the real git binary: init, identity, status, commit_paths, reads, failures."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mini_letta.errors import GitError
from mini_letta.memory.compile import render_memory_update
from mini_letta.memory.reading import listed_blobs
from mini_letta.memory.repo import GitRepo, ensure_git_available, init_memory_repo
from support.git_calls import git_calls
from support.memory import block_commits, commit_all, write_file


def _git(path: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(path), *args], capture_output=True, text=True, check=True
    ).stdout


def test_repo_init_creates_main_with_defaults_and_one_commit(memory_repo):
    assert memory_repo.current_branch() == "main"
    assert memory_repo.list_files() == ["system/human.md", "system/persona.md"]
    assert _git(memory_repo.path, "log", "--format=%an <%ae>|%cn|%s") == (
        "mini-letta <mini-letta@localhost>|mini-letta|Initialize memory\n"
    )
    assert not memory_repo.is_dirty()
    human = memory_repo.show_file("HEAD", "system/human.md")
    assert human is not None and human.startswith("---\ndescription: ")


def test_repo_init_is_idempotent(memory_repo):
    sha = memory_repo.head_sha()
    (memory_repo.path / "system" / "human.md").write_text("edited", encoding="utf-8")
    again = init_memory_repo(memory_repo.path)
    assert again.head_sha() == sha
    assert (memory_repo.path / "system" / "human.md").read_text(encoding="utf-8") == "edited"


def test_repo_init_completes_a_half_made_repo(tmp_path):
    path = tmp_path / "memory"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    repo = init_memory_repo(path, persona="I am Ada.", human="Sam likes tea.")
    assert repo.current_branch() == "main"
    assert repo.show_file("HEAD", "system/persona.md").endswith("---\nI am Ada.\n")
    assert repo.show_file("HEAD", "system/human.md").endswith("---\nSam likes tea.\n")


def test_repo_ignores_global_signing_and_hooks_path(tmp_path):
    fake_home = tmp_path / "userhome"
    fake_home.mkdir()
    hooks = tmp_path / "global-hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 1\n")
    (hooks / "pre-commit").chmod(0o755)
    (fake_home / ".gitconfig").write_text(
        f"[commit]\n\tgpgsign = true\n[user]\n\tsigningkey = bogus\n[core]\n\thooksPath = {hooks}\n"
    )
    env = {**os.environ, "HOME": str(fake_home), "GIT_DIR": str(tmp_path / "elsewhere")}
    repo = GitRepo(tmp_path / "memory", environ=env)
    init_memory_repo(repo.path)
    (repo.path / "a.md").write_text("---\ndescription: a\n---\n")
    assert repo.commit_paths(["a.md"], "add a") == repo.head_sha()


def test_repo_status_and_changed_paths(memory_repo):
    root = memory_repo.path
    (root / "system" / "human.md").write_text("changed")
    (root / "new.md").write_text("x")
    (root / "system" / "persona.md").unlink()
    assert memory_repo.is_dirty()
    assert memory_repo.changed_paths() == ["new.md", "system/human.md", "system/persona.md"]
    assert memory_repo.changed_paths(["new.md"]) == ["new.md"]
    assert not memory_repo.is_dirty(["other.md"])


def test_repo_commit_paths_commits_only_those_paths(memory_repo):
    root = memory_repo.path
    (root / "a.md").write_text("a")
    (root / "b.md").write_text("b")
    (root / "system" / "persona.md").unlink()
    sha = memory_repo.commit_paths(["a.md", "system/persona.md", "never-existed.md"], "#1 msg")
    assert sha == memory_repo.head_sha()
    assert _git(root, "show", "--name-status", "--format=%s", "HEAD").split() == [
        "#1",
        "msg",
        "A",
        "a.md",
        "D",
        "system/persona.md",
    ]
    assert memory_repo.changed_paths() == ["b.md"]


def test_repo_commit_paths_returns_none_without_change(memory_repo):
    sha = memory_repo.head_sha()
    assert memory_repo.commit_paths(["system/human.md"], "nothing") is None
    assert memory_repo.commit_paths([], "nothing") is None
    assert memory_repo.head_sha() == sha


def test_repo_commit_paths_failed_commit_unstages(memory_repo):
    block_commits(memory_repo.path)
    (memory_repo.path / "a.md").write_text("a")
    with pytest.raises(GitError) as caught:
        memory_repo.commit_paths(["a.md"], "add a")
    assert str(caught.value).startswith("git commit failed: ")
    assert "refs/heads/main.lock" in str(caught.value)
    assert _git(memory_repo.path, "diff", "--cached", "--name-only") == ""
    human = memory_repo.path / "system" / "human.md"
    human.write_text(human.read_text() + "more\n")
    with git_calls() as calls, pytest.raises(GitError, match=r"main\.lock exists"):
        memory_repo.commit_paths(["system/human.md"], "edit", tracked=True)
    assert calls == ["commit"]  # a held lock: staging and trying again would meet it too
    assert _git(memory_repo.path, "diff", "--cached", "--name-only") == ""


def test_repo_reads_at_a_revision(memory_repo):
    first = memory_repo.head_sha()
    (memory_repo.path / "notes.md").write_text("hello")
    memory_repo.commit_paths(["notes.md"], "notes")
    assert memory_repo.show_file("HEAD", "notes.md") == "hello"
    assert memory_repo.show_file(first, "notes.md") is None
    assert memory_repo.list_files(first) == ["system/human.md", "system/persona.md"]
    blobs = memory_repo.read_blobs()
    assert blobs["notes.md"] == b"hello"
    assert sorted(blobs) == ["notes.md", "system/human.md", "system/persona.md"]


def test_repo_detached_head_has_no_branch(memory_repo):
    memory_repo.run("checkout", "-q", "--detach")
    assert memory_repo.current_branch() is None


def test_repo_errors_are_one_line(memory_repo, tmp_path):
    with pytest.raises(GitError, match=r"^git frobnicate failed: .*frobnicate"):
        memory_repo.run("frobnicate")
    with pytest.raises(GitError, match="is not a commit"):
        memory_repo.rev_parse("no-such-rev")
    empty = GitRepo(tmp_path / "not-a-repo")
    (tmp_path / "not-a-repo").mkdir()
    assert empty.list_files() == []


def test_repo_missing_git_is_a_clear_error(tmp_path):
    with pytest.raises(GitError, match="^git is not installed or not on PATH; install git$"):
        ensure_git_available(str(tmp_path))
    assert ensure_git_available().endswith("git")


def test_repo_head_read_from_files_matches_git(memory_repo, tmp_path):
    root = memory_repo.path
    asked = memory_repo.run("rev-parse", "HEAD").strip()
    assert memory_repo.head_sha_or_none() == asked
    memory_repo.run("pack-refs", "--all")  # refs/heads/main moves into packed-refs
    assert not (root / ".git" / "refs" / "heads" / "main").exists()
    assert memory_repo.head_sha_or_none() == asked
    (root / "b.md").write_text("b")
    new = memory_repo.commit_paths(["b.md"], "b")
    assert memory_repo.head_sha_or_none() == new == memory_repo.run("rev-parse", "HEAD").strip()
    memory_repo.run("checkout", "-q", "--detach")
    assert memory_repo.head_sha_or_none() == new
    worktree = tmp_path / "wt"
    memory_repo.run("worktree", "add", "-q", "-b", "side", str(worktree))
    assert GitRepo(worktree).head_sha_or_none() == new  # its .git file names where HEAD is
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", str(fresh)], check=True)
    assert GitRepo(fresh).head_sha_or_none() is None


def test_head_and_branch_are_read_without_git_where_the_files_answer(memory_repo, tmp_path):
    # a GitRepo that cannot run git: each answer below comes from the files alone
    no_git = {"PATH": str(tmp_path / "nowhere")}
    asked = memory_repo.run("rev-parse", "HEAD").strip()
    files_only = GitRepo(memory_repo.path, environ=no_git)
    assert (files_only.head_sha(), files_only.has_head()) == (asked, True)
    assert files_only.current_branch() == "main"
    memory_repo.run("pack-refs", "--all")
    assert files_only.head_sha() == asked
    memory_repo.run("checkout", "-q", "--detach")
    assert (files_only.current_branch(), files_only.head_sha()) == (None, asked)
    worktree = tmp_path / "wt"
    memory_repo.run("worktree", "add", "-q", "-b", "side", str(worktree))
    (worktree / "w.md").write_text("w")
    side = GitRepo(worktree).commit_paths(["w.md"], "w")  # HEAD in its git dir, refs shared
    in_worktree = GitRepo(worktree, environ=no_git)
    assert (in_worktree.head_sha(), in_worktree.current_branch()) == (side, "side")
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(fresh)], check=True)
    unborn = GitRepo(fresh, environ=no_git)
    assert (unborn.head_sha_or_none(), unborn.has_head(), unborn.current_branch()) == (
        None,
        False,
        "trunk",
    )
    with pytest.raises(GitError, match="'HEAD' is not a commit"):
        unborn.head_sha()
    (fresh / ".git" / "reftable").mkdir()  # a layout the files cannot answer for: ask git
    with pytest.raises(GitError, match="git is not installed"):
        unborn.head_sha_or_none()


def test_reading_what_changed_between_two_commits_reads_only_that(memory_repo):
    repo = memory_repo
    write_file(repo.path, "keep.md", "---\ndescription: k\n---\nsame\n")
    write_file(repo.path, "edit.md", "---\ndescription: e\n---\nold\n")
    write_file(repo.path, "gone.md", "---\ndescription: g\n---\nbye\n")
    write_file(repo.path, "mode.md", "---\ndescription: m\n---\nsame bytes\n")
    commit_all(repo.path, "before")
    old = repo.head_sha()
    write_file(repo.path, "edit.md", "---\ndescription: e\n---\nnew\n")
    write_file(repo.path, "notes/新.md", "---\ndescription: n\n---\nadded\n")
    (repo.path / "gone.md").unlink()
    (repo.path / "mode.md").chmod(0o755)
    git = ["git", "-C", str(repo.path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True)
    sub = "0" * 39 + "1"  # a gitlink names another repository's commit, never readable here
    gitlink = f"160000,{sub},lib"
    subprocess.run([*git, "update-index", "--add", "--cacheinfo", gitlink], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "after"], check=True)
    assert "160000 commit" in repo.run("ls-tree", "HEAD", "lib")
    before, after = repo.read_changed_blobs(old, repo.head_sha())
    assert set(before) == {"edit.md", "gone.md", "mode.md"}
    assert set(after) == {"edit.md", "notes/新.md", "mode.md"}
    assert after["edit.md"].endswith(b"new\n") and before["gone.md"].endswith(b"bye\n")
    everything = repo.read_blobs(old), repo.read_blobs(repo.head_sha())
    assert render_memory_update(before, after, "c") == render_memory_update(*everything, "c")


def test_a_first_commit_in_a_repository_without_an_index_asks_nothing_of_it(tmp_path):
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", str(fresh)], check=True)
    (fresh / "a.md").write_text("a")
    repo = GitRepo(fresh)
    sha = repo.commit_paths(["a.md", "never-there.md"], "first")
    assert sha is not None and repo.list_files() == ["a.md"]
    (fresh / "a.md").unlink()  # now an index exists: a deletion is staged from it
    assert repo.commit_paths(["a.md"], "gone") is not None
    assert repo.list_files() == []


def test_branches_and_worktrees_are_read_from_the_files_and_git_is_asked_when_unsure(
    memory_repo, tmp_path
):
    repo, git_dir = memory_repo, memory_repo.path / ".git"
    assert not repo.may_have_branches("reflection/") and not repo.may_have_worktrees()
    _git(repo.path, "branch", "reflectionary")  # a name that only starts alike
    _git(repo.path, "branch", "reflection/deep/run-1")
    assert repo.may_have_branches("reflection/")
    _git(repo.path, "pack-refs", "--all")  # now only in packed-refs
    assert not (git_dir / "refs" / "heads" / "reflection" / "deep" / "run-1").exists()
    assert repo.may_have_branches("reflection/")
    _git(repo.path, "branch", "-D", "reflection/deep/run-1")
    assert not repo.may_have_branches("reflection/")
    (git_dir / "reftable").mkdir()  # refs git alone can read: ask it
    assert repo.may_have_branches("reflection/")
    (git_dir / "reftable").rmdir()
    _git(repo.path, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"))
    assert repo.may_have_worktrees() and GitRepo(tmp_path / "wt").may_have_worktrees()
    _git(repo.path, "worktree", "remove", str(tmp_path / "wt"))
    assert not repo.may_have_worktrees()


def _blobs_in_folder_17(count: int) -> dict[str, str]:
    """`count` memory files whose blobs git stores in `objects/17`, the folder `gc --auto`
    counts loose objects in (hashed here as git hashes a blob)."""
    import hashlib

    files: dict[str, str] = {}
    n = 0
    while len(files) < count:
        text = f"---\ndescription: n{n}\n---\n- {n}\n"
        data = text.encode()
        if hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest().startswith("17"):
            files[f"notes/n{n}.md"] = text
        n += 1
    return files


def test_a_commit_packs_when_git_s_rule_says_so_with_no_process_for_it_otherwise(
    memory_repo, tmp_path
):
    """git's own auto-maintenance is off (a process after every commit); the commit packs
    by the same rule read from the files: a commit that leaves five loose objects in
    `objects/17` is packed, and an ordinary one starts no maintenance process and no gc."""
    from support.git_calls import git_calls

    trace = tmp_path / "trace"
    traced = GitRepo(memory_repo.path, environ={**os.environ, "GIT_TRACE": str(trace)})
    write_file(memory_repo.path, "notes/one.md", "---\ndescription: one\n---\n- one\n")
    with git_calls() as calls:
        traced.commit_paths(["notes/one.md"], "one")
    assert "gc" not in calls and not traced.pack_due()
    assert "maintenance" not in trace.read_text(encoding="utf-8")
    files = _blobs_in_folder_17(5)
    for path, text in files.items():
        write_file(memory_repo.path, path, text)
    with git_calls() as calls:
        memory_repo.commit_paths(sorted(files), "five in 17")
    assert "gc" in calls and not memory_repo.pack_due()
    assert not list((memory_repo.path / ".git" / "objects" / "17").glob("*"))
    for path, text in files.items():
        assert memory_repo.show_file("HEAD", path) == text


def test_commit_all_names_the_paths_git_status_names(memory_repo):
    """One `git add -A -v` stages and names: the names are status's (content changes only,
    ignored files left out), a name git's list cannot carry (a line break) is asked of
    status, a failed commit unstages everything, and no change is no commit."""
    root = memory_repo.path
    write_file(root, ".gitignore", "*.tmp\n")
    write_file(root, "it's.md", "quote\n")
    commit_all(root)
    human = (root / "system" / "human.md").read_text()
    (root / "system" / "human.md").write_text(human + "- more\n")
    (root / "system" / "persona.md").write_text((root / "system" / "persona.md").read_text())
    (root / "it's.md").unlink()
    write_file(root, "笔记/新.md", "新\n")
    write_file(root, "scratch.tmp", "ignored\n")
    expected = memory_repo.changed_paths()
    assert expected == ["it's.md", "system/human.md", "笔记/新.md"]
    head = memory_repo.head_sha()
    sha, paths = memory_repo.commit_all("several")
    assert paths == expected and sha == memory_repo.head_sha() != head
    assert memory_repo.changed_paths() == [] and memory_repo.commit_all("again") is None
    assert memory_repo.head_sha() == sha
    write_file(root, "line\nbreak.md", "x\n")
    (root / "system" / "human.md").write_text(human)
    expected = memory_repo.changed_paths()
    block_commits(root)
    with pytest.raises(GitError):
        memory_repo.commit_all("blocked")
    assert _git(root, "diff", "--cached", "--name-only") == ""  # nothing left staged
    (root / ".git" / "refs" / "heads" / "main.lock").unlink()
    assert memory_repo.commit_all("after the lock")[1] == expected


def test_commit_paths_of_tracked_files_commits_with_one_git_process(memory_repo):
    """`tracked`: an edit and a deletion of files git knows are committed by `git commit --
    paths` alone, only those paths (another change stays uncommitted); unchanged paths commit
    nothing; a path git does not know after all is staged and committed the usual way."""
    from support.git_calls import git_calls

    root = memory_repo.path
    human = (root / "system" / "human.md").read_text()
    (root / "system" / "human.md").write_text(human + "- Editor: vim\n")
    (root / "system" / "persona.md").unlink()
    write_file(root, "notes/other.md", "---\ndescription: other\n---\n- left alone\n")
    paths = ["system/human.md", "system/persona.md"]
    with git_calls() as calls:
        sha = memory_repo.commit_paths(paths, "edit and delete", tracked=True)
    assert calls == ["commit"]
    assert sha == memory_repo.head_sha()
    assert memory_repo.list_files() == ["system/human.md"]
    assert memory_repo.show_file("HEAD", "system/human.md").endswith("- Editor: vim\n")
    assert memory_repo.changed_paths() == ["notes/other.md"]
    assert memory_repo.commit_paths(["system/human.md"], "again", tracked=True) is None
    with git_calls() as calls:
        new = memory_repo.commit_paths(["notes/other.md"], "not tracked", tracked=True)
    assert calls == ["commit", "add", "commit"]
    assert new == memory_repo.head_sha() != sha
    assert memory_repo.changed_paths() == []


def test_a_snapshot_is_read_with_one_git_process_and_matches_ls_tree(memory_repo, tmp_path):
    repo = memory_repo
    write_file(repo.path, "a.md", "top\n")
    write_file(repo.path, "a/b/c/deep.md", "deep\n")
    write_file(repo.path, "a-b.md", "dash\n")
    write_file(repo.path, "notes/新.md", "unicode\n")
    write_file(repo.path, "empty.md", "")
    write_file(repo.path, "tool.sh", "#!/bin/sh\n")
    (repo.path / "tool.sh").chmod(0o755)
    (repo.path / "link.md").symlink_to("a.md")  # a link is not a memory file
    commit_all(repo.path, "shapes")
    git = ["git", "-C", str(repo.path), "-c", "user.name=t", "-c", "user.email=t@t"]
    sub = "0" * 39 + "1"  # another repository's commit: never read
    subprocess.run([*git, "update-index", "--add", "--cacheinfo", f"160000,{sub},lib"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "gitlink"], check=True)
    listed = _git(repo.path, "ls-tree", "-r", "-z", "HEAD").split("\0")
    expected = [line.split("\t")[1] for line in listed if line and " blob " in line]
    expected.remove("link.md")
    with git_calls() as calls:
        blobs = repo.read_blobs()
    assert calls == ["cat-file"]
    assert list(blobs) == expected  # git's own order
    assert blobs["a/b/c/deep.md"] == b"deep\n" and blobs["empty.md"] == b""
    assert blobs["notes/新.md"] == b"unicode\n"
    first = _git(repo.path, "rev-list", "--max-parents=0", "HEAD").strip()
    assert list(repo.read_blobs(first)) == ["system/human.md", "system/persona.md"]
    with pytest.raises(GitError, match="is not a commit"):
        repo.read_blobs("no-such-rev")
    unborn = tmp_path / "unborn"
    subprocess.run(["git", "init", "-q", str(unborn)], check=True)
    assert GitRepo(unborn).read_blobs() == {}


def test_a_snapshot_larger_than_a_pipe_is_read_without_stalling(memory_repo):
    # 1,400 entries: the requests (~70 KB) and answers (~200 KB) outgrow both pipes' buffers,
    # so they must be written while the answers are read
    repo = memory_repo
    git = ["git", "-C", str(repo.path), "-c", "user.name=t", "-c", "user.email=t@t"]
    put = subprocess.run(
        [*git, "hash-object", "-w", "--stdin"], input=b"x" * 100, capture_output=True, check=True
    )
    blob = put.stdout.decode().strip()
    listing = "".join(f"100644 blob {blob}\tf{n:04}.md\n" for n in range(1400))
    folder = (
        subprocess.run([*git, "mktree"], input=listing.encode(), capture_output=True, check=True)
        .stdout.decode()
        .strip()
    )
    root = subprocess.run(
        [*git, "mktree"], input=f"040000 tree {folder}\tmany\n".encode(),
        capture_output=True, check=True,
    ).stdout.decode().strip()  # fmt: skip
    commit = _git(repo.path, "commit-tree", root, "-m", "many").strip()
    blobs = repo.read_blobs(commit)
    assert len(blobs) == 1400 and set(blobs.values()) == {b"x" * 100}
    assert next(iter(blobs)) == "many/f0000.md"


def test_a_sha256_repository_is_read_as_well(tmp_path):
    root = tmp_path / "sha256"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(root)], check=True)
    write_file(root, "dir/a.md", "a\n")
    commit_all(root, "first")
    repo = GitRepo(root)
    assert repo.read_blobs() == {"dir/a.md": b"a\n"}


def test_a_git_without_batch_commands_reads_the_same_snapshot_the_older_way(memory_repo):
    write_file(memory_repo.path, "n/a.md", "a\n")
    (memory_repo.path / "link.md").symlink_to("n/a.md")
    commit_all(memory_repo.path, "a")
    assert listed_blobs(memory_repo, "HEAD") == memory_repo.read_blobs()
