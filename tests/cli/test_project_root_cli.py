"""The project from any folder: the nearest `.mini-letta/`, else the git top, else the folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mini_letta.home import Home
from mini_letta.workspace import ProjectReason, find_project
from support.cli import run_cli_in_process


def _git_init(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=30)
    return folder


def _fenced(tmp_path: Path) -> dict[str, str]:
    """Never look above the test's own folder, whatever the machine has there."""
    return {"GIT_CEILING_DIRECTORIES": str(tmp_path)}


def _cli(home: Home, cwd: Path, tmp_path: Path, *args: str) -> Any:
    return run_cli_in_process(*args, home=home.root, cwd=cwd, env=_fenced(tmp_path))


def _agent_id(result: Any) -> str:
    assert result.code == 0, result.stderr
    return str(json.loads(result.stdout)["agentId"])


def test_a_subfolder_uses_the_projects_agent_and_leaves_nothing_behind(home, project, tmp_path):
    first = _agent_id(_cli(home, project, tmp_path, "chat", "-p", "hi", "--output-format", "json"))
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    again = _cli(home, deep, tmp_path, "chat", "-p", "again", "--output-format", "json")
    assert _agent_id(again) == first
    assert not (deep / ".mini-letta").exists() and not (project / "src" / ".mini-letta").exists()
    status = _cli(home, deep, tmp_path, "status")
    assert status.code == 0, status.stderr
    assert f"project     {project} (it has .mini-letta/)" in status.stdout
    assert first in status.stdout
    data = json.loads(_cli(home, deep, tmp_path, "status", "--output-format", "json").stdout)
    assert data["project"] == {"path": str(project), "reason": "marker"}
    assert data["agent"]["id"] == first


def test_the_project_folder_ignores_itself_for_git(home, project, tmp_path):
    _git_init(project)
    assert _cli(home, project, tmp_path, "chat", "-p", "hi").code == 0
    assert (project / ".mini-letta" / ".gitignore").read_text() == "*\n"
    shown = subprocess.run(
        ["git", "-C", str(project), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    assert ".mini-letta" not in shown.stdout


def test_a_gitignore_the_user_removed_is_not_written_again(home, project, tmp_path):
    assert _cli(home, project, tmp_path, "chat", "-p", "hi").code == 0
    (project / ".mini-letta" / ".gitignore").unlink()
    assert _cli(home, project, tmp_path, "chat", "-p", "again").code == 0
    assert not (project / ".mini-letta" / ".gitignore").exists()


def test_in_a_git_repo_a_subfolder_makes_the_project_at_the_top(home, tmp_path):
    repo = _git_init(tmp_path / "repo")
    sub = repo / "docs" / "guide"
    sub.mkdir(parents=True)
    made = _agent_id(_cli(home, sub, tmp_path, "chat", "-p", "hi", "--output-format", "json"))
    assert (repo / ".mini-letta" / "settings.local.json").is_file()
    assert not (sub / ".mini-letta").exists() and not (repo / "docs" / ".mini-letta").exists()
    status = _cli(home, repo, tmp_path, "status", "--output-format", "json")
    assert json.loads(status.stdout)["agent"]["id"] == made


def test_a_nested_repo_uses_its_own_top_unless_a_project_encloses_it(home, tmp_path):
    outer = _git_init(tmp_path / "outer")
    inner = _git_init(outer / "vendor" / "lib")
    root = find_project(inner, home, _fenced(tmp_path))
    assert root.dir == inner and root.reason is ProjectReason.GIT
    assert _cli(home, outer, tmp_path, "chat", "-p", "hi").code == 0  # outer is now a project
    enclosed = find_project(inner, home, _fenced(tmp_path))
    assert enclosed.dir == outer and enclosed.reason is ProjectReason.MARKER


def test_a_bare_folder_is_its_own_project(home, tmp_path):
    bare = tmp_path / "scratch"
    bare.mkdir()
    root = find_project(bare, home, _fenced(tmp_path))
    assert root == find_project(bare, home, {"GIT_CEILING_DIRECTORIES": str(bare.parent)})
    assert root.dir == bare and root.reason is ProjectReason.CWD
    result = _cli(home, bare, tmp_path, "status")
    assert result.code == 1
    assert result.stderr.startswith(f"mini-letta: no agent yet for the project at {bare};")
    assert not (bare / ".mini-letta").exists()  # a read leaves nothing


def test_the_default_home_is_not_mistaken_for_a_project(tmp_path):
    user = tmp_path / "user"
    home = Home(user / ".mini-letta")
    (home.root / "agents").mkdir(parents=True)
    code = user / "code" / "thing"
    code.mkdir(parents=True)
    root = find_project(code, home, _fenced(tmp_path))
    assert root.dir == code and root.reason is ProjectReason.CWD
    other_home = Home(tmp_path / "elsewhere")  # a home at ~/.mini-letta seen from another home
    assert find_project(code, other_home, _fenced(tmp_path)).dir == code


def test_an_empty_home_named_through_a_link_is_still_the_home(tmp_path):
    """A home with nothing in it yet is known by being the home folder itself, whatever path
    names it; the same folder seen from another home is a project's marker."""
    user = tmp_path / "user"
    real = user / ".mini-letta"
    real.mkdir(parents=True)
    link = tmp_path / "home-link"
    link.symlink_to(real)
    code = user / "code"
    code.mkdir()
    for home in (Home(real), Home(link)):
        root = find_project(code, home, _fenced(tmp_path))
        assert (root.dir, root.reason) == (code, ProjectReason.CWD), home
    elsewhere = find_project(code, Home(tmp_path / "elsewhere"), _fenced(tmp_path))
    assert (elsewhere.dir, elsewhere.reason) == (user, ProjectReason.MARKER)


def test_an_unwritable_project_fails_in_one_line_and_creates_no_agent(home, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if _writable(locked):
            pytest.skip("running as a user who can write anywhere")
        result = _cli(home, locked, tmp_path, "chat", "-p", "hi")
        assert result.code == 1 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        agents = _cli(home, locked, tmp_path, "agents", "list", "--json")
        assert json.loads(agents.stdout) == []
    finally:
        locked.chmod(0o755)


def _writable(folder: Path) -> bool:
    try:
        (folder / "probe").write_text("")
    except OSError:
        return False
    (folder / "probe").unlink()
    return True
