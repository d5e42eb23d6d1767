"""Git never runs a program a repository names: hostile .git/config, hooks and attributes.

Each program writes a marker file; plain git (the control) fires them, mini-letta's memory
operations, reflection worktrees and the Grep/Glob tools never do.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mini_letta.gitsafe import (
    TRANSPORT_KEYS,
    driver_overrides,
    safe_git_env,
    user_transport_config,
)
from mini_letta.memory.history import load_diff, load_log, load_status, undo_commit
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.run.finalise import merge_branch
from mini_letta.reflection.run.worktree import branch_diff, create_worktree, remove_worktree
from mini_letta.tools.base import ToolContext
from mini_letta.tools.memory_tool import MemoryTool
from support.clock import FakeClock
from support.tools import call_tool, make_context

HOOKS = (
    "pre-commit",
    "commit-msg",
    "post-commit",
    "post-merge",
    "post-checkout",
    "pre-merge-commit",
    "reference-transaction",
    "post-index-change",
    "post-rewrite",
)


def _arm(repo: Path, markers: Path) -> None:
    """Hostile config: every program git could run on its own touches `markers/<name>`."""
    markers.mkdir(exist_ok=True)
    programs = markers.parent / "programs"
    programs.mkdir(exist_ok=True)

    def touch(name: str) -> str:
        script = programs / name
        script.write_text(f'#!/bin/sh\ntouch "{markers / name}"\nexec cat "$@"\n')
        script.chmod(0o755)
        return str(script)

    git_dir = repo / ".git"
    with (git_dir / "config").open("a") as config:
        config.write(
            f"[core]\n\tfsmonitor = {touch('fsmonitor')}\n\tpager = {touch('pager')}\n"
            f"\teditor = {touch('editor')}\n\tsshCommand = {touch('ssh')}\n"
            f"[diff]\n\texternal = {touch('external-diff')}\n"
            f'[diff "evil"]\n\ttextconv = {touch("textconv")}\n'
            f"\tcommand = {touch('diff-command')}\n"
            f'[filter "evil"]\n\tclean = {touch("clean")}\n'
            f"\tsmudge = {touch('smudge')}\n\trequired = true\n"
            f'[merge "evil"]\n\tdriver = {touch("merge-driver")} %A\n'
            f"[credential]\n\thelper = !{touch('credential')}\n"
        )
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* filter=evil diff=evil merge=evil\n")
    for hook in HOOKS:
        path = git_dir / "hooks" / hook
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"#!/bin/sh\nexec {touch('hook-' + hook)} </dev/null >/dev/null\n")
        path.chmod(0o755)


def _fired(markers: Path) -> list[str]:
    return sorted(path.name for path in markers.iterdir())


def _plain_git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        timeout=30,
        check=False,
    )


def test_plain_git_runs_the_hostile_programs(tmp_path, memory_repo):
    """The control: the same setup does run programs when git is called naively."""
    repo = memory_repo
    markers = tmp_path / "markers"
    _arm(repo.path, markers)
    (repo.path / "a.md").write_text("a\n")
    _plain_git(repo.path, "add", "a.md")
    _plain_git(repo.path, "commit", "-qm", "a")
    assert {"fsmonitor", "clean", "hook-pre-commit"} <= set(_fired(markers))


def test_memory_operations_run_no_repository_program(tmp_path, memory_repo):
    repo = memory_repo
    markers = tmp_path / "markers"
    _arm(repo.path, markers)
    ctx = ToolContext(cwd=tmp_path, clock=FakeClock(), memory_dir=repo.path)
    tool = MemoryTool()
    tool.run({"command": "create", "path": "notes.md", "description": "N", "reason": "n"}, ctx)
    first = repo.head_sha()
    edit = {"command": "insert", "path": "system/human.md", "content": "- tabs", "reason": "t"}
    tool.run(edit, ctx)
    assert load_status(repo.path) is not None
    assert len(load_log(repo.path, 10)) == 3
    assert "- tabs" in load_diff(repo.path, first)
    undo_commit(repo.path, first)
    assert not (repo.path / "notes.md").exists()
    assert _fired(markers) == []


def test_reflection_worktree_and_merge_run_no_repository_program(tmp_path, memory_repo):
    parent = memory_repo
    markers = tmp_path / "markers"
    _arm(parent.path, markers)
    worktree = create_worktree(parent, tmp_path / "worktrees", "run-1")
    (worktree.path / "learned.md").write_text("---\ndescription: L\n---\nx\n")
    worktree.repo.commit_paths(["learned.md"], "reflection: learned")
    assert "learned.md" in branch_diff(parent, worktree)
    assert merge_branch(parent, worktree).merged
    remove_worktree(parent, worktree)
    assert parent.show_file("HEAD", "learned.md") is not None
    assert _fired(markers) == []


def test_a_three_way_merge_never_runs_a_merge_driver(tmp_path, memory_repo):
    parent = memory_repo
    markers = tmp_path / "markers"
    _arm(parent.path, markers)
    worktree = create_worktree(parent, tmp_path / "worktrees", "run-1")
    (worktree.path / "branch.md").write_text("---\ndescription: B\n---\nb\n")
    (worktree.path / "system" / "human.md").write_text("changed on the branch\n")
    worktree.repo.commit_paths(["branch.md", "system/human.md"], "branch")
    (parent.path / "system" / "human.md").write_text("changed on main\n")
    parent.commit_paths(["system/human.md"], "main")
    attempt = merge_branch(parent, worktree)
    remove_worktree(parent, worktree)
    assert not attempt.merged  # the disarmed driver reports a conflict; nothing ran
    assert _fired(markers) == []


@pytest.mark.parametrize("tool", ["Glob", "Grep"])
def test_search_tools_run_no_program_of_the_project_repository(tmp_path, tool):
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    (project / "a.py").write_text("print('a')\n")
    _plain_git(project, "add", "a.py")
    markers = tmp_path / "markers"
    _arm(project, markers)
    (project / "b.py").write_text("print('b')\n")
    ctx = make_context(project, FakeClock(), permission_mode="acceptEdits")
    result = call_tool(tool, {"pattern": "**/*.py" if tool == "Glob" else "print"}, ctx)
    assert "a.py" in result.content and "b.py" in result.content
    assert _fired(markers) == []


def test_driver_overrides_disarm_every_named_driver():
    listing = (
        b"filter.lfs.clean\ngit-lfs clean -- %f\0filter.a.b.smudge\nx\0"
        b"merge.ours.driver\ntrue\0remote.origin.uploadpack\nevil\0"
    )
    assert driver_overrides(listing) == [
        "filter.lfs.clean=cat",
        "filter.lfs.smudge=cat",
        "filter.lfs.process=",
        "filter.lfs.required=false",
        "filter.a.b.clean=cat",
        "filter.a.b.smudge=cat",
        "filter.a.b.process=",
        "filter.a.b.required=false",
        "merge.ours.driver=false",
        "remote.origin.uploadpack=git-upload-pack",
        "remote.origin.receivepack=git-receive-pack",
    ]


def test_safe_env_reads_no_user_config_and_drops_overrides():
    env = safe_git_env(
        {"PATH": "/bin", "GIT_DIR": "/x", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a"}
    )
    assert env["PATH"] == "/bin" and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert "GIT_DIR" not in env and "GIT_CONFIG_KEY_0" not in env
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    remote = safe_git_env({"PATH": "/bin"}, user_config=True)
    assert "GIT_CONFIG_GLOBAL" not in remote and "GIT_CONFIG_NOSYSTEM" not in remote


def test_git_repo_commits_a_filtered_file_as_it_is_on_disk(tmp_path, memory_repo):
    """With the filter disarmed, what is committed is the bytes on disk, not the filter's."""
    repo = memory_repo
    with (repo.path / ".git" / "config").open("a") as config:
        config.write('[filter "upper"]\n\tclean = tr a-z A-Z\n\trequired = true\n')
    (repo.path / ".gitattributes").write_text("*.md filter=upper\n")
    (repo.path / "a.md").write_text("exact bytes\n")
    repo.commit_paths(["a.md"], "a")
    assert GitRepo(repo.path).show_file("HEAD", "a.md") == "exact bytes\n"


def test_remote_operations_take_transport_settings_from_the_user_only():
    listing = b"credential.helper\nosxkeychain\0core.sshcommand\nssh -i key\0"
    assert user_transport_config(listing) == [
        "credential.helper=",
        "credential.helper=osxkeychain",
        "core.sshCommand=ssh -i key",
        "core.askPass=",
    ]
    assert user_transport_config(b"")[-2:] == ["core.sshCommand=ssh", "core.askPass="]


def test_a_remote_git_call_runs_no_repository_program(tmp_path, memory_repo):
    repo = memory_repo
    markers = tmp_path / "markers"
    _arm(repo.path, markers)
    remote = GitRepo(repo.path, environ={**os.environ, "HOME": str(tmp_path)}, user_config=True)
    (repo.path / "a.md").write_text("a\n")
    remote.commit_paths(["a.md"], "a")
    remote.run("fetch", "-q", "ext::sh -c touch% " + str(markers / "ext"), check=False)
    assert _fired(markers) == []


UPPER = "\tclean = tr a-z A-Z\n\trequired = true\n"
# Ways a repository can define a driver that a quick look at `.git/config` might miss; each is
# read by git (the control below), so mini-letta must ask git and disarm it.
HIDDEN_DRIVERS = {
    "include": ("[include]\n\tpath = more.cfg\n", '[filter "upper"]\n' + UPPER),
    "includeIf": ('[includeIf "onbranch:**"]\n\tpath = more.cfg\n', '[filter "upper"]\n' + UPPER),
    "upper case": ('[FILTER "upper"]\n' + UPPER, None),
    "old dotted header": ("[Filter.upper]\n" + UPPER, None),
}


@pytest.mark.parametrize("how", sorted(HIDDEN_DRIVERS))
def test_a_driver_the_config_hides_is_still_asked_of_git_and_disarmed(tmp_path, how, memory_repo):
    repo = memory_repo
    main, included = HIDDEN_DRIVERS[how]
    with (repo.path / ".git" / "config").open("a") as config:
        config.write(main)
    if included is not None:
        (repo.path / ".git" / "more.cfg").write_text(included)
    (repo.path / ".gitattributes").write_text("*.md filter=upper\n")
    _plain_git(repo.path, "add", ".gitattributes")  # the control: plain git runs the filter
    assert _plain_config(repo.path, "filter.upper.clean") == "tr a-z A-Z"
    (repo.path / "a.md").write_text("exact bytes\n")
    GitRepo(repo.path).commit_paths(["a.md", ".gitattributes"], "a")
    assert GitRepo(repo.path).show_file("HEAD", "a.md") == "exact bytes\n"


def test_a_driver_in_a_worktrees_own_config_is_disarmed_there(tmp_path, memory_repo):
    parent = memory_repo
    _plain_git(parent.path, "config", "extensions.worktreeConfig", "true")
    worktree = create_worktree(parent, tmp_path / "worktrees", "run-1")
    own = Path(_plain_config(worktree.path, "--absolute-git-dir", command="rev-parse"))
    (own / "config.worktree").write_text('[filter "upper"]\n' + UPPER)
    assert _plain_config(worktree.path, "filter.upper.clean") == "tr a-z A-Z"
    assert _plain_config(parent.path, "filter.upper.clean") == ""  # the checkout has none
    (worktree.path / ".gitattributes").write_text("*.md filter=upper\n")
    (worktree.path / "a.md").write_text("exact bytes\n")
    GitRepo(parent.path).run("status")  # the checkout's answer must not stand for the worktree
    worktree.repo.commit_paths(["a.md", ".gitattributes"], "a")
    assert parent.show_file(worktree.tip(), "a.md") == "exact bytes\n"
    remove_worktree(parent, worktree)


def _plain_config(repo: Path, *args: str, command: str = "config") -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), command, *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return proc.stdout.strip()


def test_a_driver_added_later_to_an_included_file_is_disarmed_too(tmp_path, memory_repo):
    """An included file is not among the files whose stamp says the config is unchanged, so
    a repository that includes one is asked every time."""
    repo = memory_repo
    main, included = HIDDEN_DRIVERS["include"]
    with (repo.path / ".git" / "config").open("a") as config:
        config.write(main)
    more = repo.path / ".git" / "more.cfg"
    more.write_text(str(included))
    (repo.path / ".gitattributes").write_text("*.md filter=upper\n*.txt filter=lower\n")
    (repo.path / "a.md").write_text("exact bytes\n")
    repo.commit_paths(["a.md", ".gitattributes"], "a")
    with more.open("a") as extra:
        extra.write('[filter "lower"]\n\tclean = tr A-Z a-z\n\trequired = true\n')
    assert _plain_config(repo.path, "filter.lower.clean") == "tr A-Z a-z"
    (repo.path / "b.txt").write_text("Exact Bytes\n")
    repo.commit_paths(["b.txt"], "b")
    assert repo.show_file("HEAD", "b.txt") == "Exact Bytes\n"


def test_the_users_transport_settings_are_read_with_one_git_process(tmp_path, memory_repo):
    from support.git_calls import git_calls

    repo = memory_repo
    _plain_git(repo.path, "config", "credential.helper", "!evil")
    _plain_git(repo.path, "config", "core.sshCommand", "evil-ssh")
    (tmp_path / ".gitconfig").write_text(
        "[credential]\n\thelper = store\n[core]\n\tsshCommand = ssh -i key\n"
    )
    environ = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    remote = GitRepo(repo.path, environ=environ, user_config=True)
    with git_calls() as calls:
        transport = remote._user_transport()
    assert calls == ["config"]
    assert "credential.helper=store" in transport and "core.sshCommand=ssh -i key" in transport
    assert not any("evil" in item for item in transport)
    by_scope = b"".join(  # what git says scope by scope, on this machine's system config too
        subprocess.run(
            ["git", "-C", str(repo.path), "config", scope, "-z", "--get-regexp", TRANSPORT_KEYS],
            capture_output=True,
            env=environ,
            timeout=30,
            check=False,
        ).stdout
        for scope in ("--system", "--global")
    )
    assert transport == user_transport_config(by_scope)
