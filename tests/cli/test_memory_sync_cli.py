"""`memory remote|sync` and `agents create --memory-remote` as a user runs them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mini_letta.agents.registry import load_agent
from mini_letta.cli.background import spawn_job
from mini_letta.memory.remote import memory_remote_repo, set_remote
from mini_letta.reflection.state.settings import save_reflection_settings
from mini_letta.session import AutoSync, PostTurnJob
from mini_letta.tools.memory_tool import apply_and_commit
from mini_letta.workspace import World, new_agent
from support.cli import cli_env


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def _remote_file(remote: Path, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(remote), "show", f"refs/heads/main:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _agent_names(cli) -> list[str]:
    return [agent["name"] for agent in json.loads(cli("agents", "list", "--json").stdout)]


def _laptop(cli, tmp_path: Path):
    """A second machine: its own home and its own project folder."""
    project = tmp_path / "laptop-project"
    project.mkdir()
    return type(cli)(tmp_path / "laptop-home", project)


def test_a_bad_remote_url_is_a_usage_error(cli):
    cli("agents", "create", "--name", "a")
    result = cli("memory", "remote", "set", "https://me:pw@example.com/m.git")
    assert result.code == 2 and "password" in result.stderr and "pw@" not in result.stderr
    created = cli("agents", "create", "--name", "b", "--memory-remote", "ext::sh -c id")
    assert created.code == 2 and "not allowed" in created.stderr
    assert _agent_names(cli) == ["a"]


def test_after_merge_syncs_in_the_background_when_memory_moves(home, project, clock, remote):
    world = World(home=home, cwd=project, environ=cli_env(home.root), clock=clock)
    agent = new_agent(world)
    memory = world.home.memory_dir(agent.id)
    set_remote(memory_remote_repo(memory), str(remote))
    save_reflection_settings(world.home, world.cwd, agent, {"memorySync": "after-merge"}, "agent")
    workers: list[subprocess.Popen[bytes]] = []

    def spawn(job: PostTurnJob) -> int:
        workers.append(spawn_job(world, job))
        return workers[-1].pid

    session = AutoSync(world, load_agent(world.home, agent.id), spawn)  # as saved just now
    assert session.after_turn() is None  # nothing moved
    args = {"command": "insert", "path": "system/human.md", "content": "- likes tabs"}
    apply_and_commit(memory, "insert", args, "remember tabs")
    assert session.after_turn() == workers[0].pid
    assert workers[0].wait(timeout=60) == 0
    assert "- likes tabs" in _remote_file(remote, "system/human.md")
    assert session.after_turn() is None


def test_remote_set_sync_join_review_and_unset(cli, remote, tmp_path):
    """One story, as two machines live it (each step builds on the last): the desk sets a
    remote and pushes; the laptop joins with `agents create`; both edit the same line and
    each lists the file left for review after its sync; the desk forgets the remote."""
    assert cli("chat", "-p", "请记住我喜欢用 vim").code == 0
    assert "no remote" in cli("memory", "sync").stderr
    done = cli("memory", "remote", "set", str(remote))
    assert done.code == 0 and str(remote) in done.stdout
    synced = cli("memory", "sync")
    assert synced.code == 0 and synced.stdout.startswith("memory sync: pushed; memory at ")
    assert "我喜欢用 vim" in _remote_file(remote, "system/human.md")
    again = json.loads(cli("memory", "sync", "--json").stdout)
    assert again["pushed"] is False and again["pulled"] == 0
    shown = json.loads(cli("memory", "remote", "show", "--json").stdout)
    assert shown["url"] == str(remote) and shown["lastError"] is None

    laptop = _laptop(cli, tmp_path)
    joined = laptop("agents", "create", "--name", "laptop", "--memory-remote", str(remote))
    assert joined.code == 0, joined.stderr
    assert "我喜欢用 vim" in laptop("memory", "show", "system/human.md").stdout
    missing = laptop("agents", "create", "--name", "x", "--memory-remote", str(tmp_path / "no"))
    assert missing.code == 1 and "git clone failed" in missing.stderr
    assert _agent_names(laptop) == ["laptop"]  # nothing half-made is left
    laptop_memory = Path(laptop("memory", "path").stdout.strip())
    desk_memory = Path(cli("memory", "path").stdout.strip())
    for memory, text in ((desk_memory, "- vim, always"), (laptop_memory, "- emacs now")):
        args = {"command": "str_replace", "path": "system/human.md"}
        args |= {"old_str": "- 我喜欢用 vim", "new_str": text}
        apply_and_commit(memory, "str_replace", args, "change editor")
    assert cli("memory", "sync").code == 0
    result = laptop("memory", "sync")
    assert "needs review: system/human.md" in result.stdout
    status = laptop("memory", "status")
    assert "needs review: system/human.md" in status.stdout
    assert json.loads(laptop("memory", "status", "--json").stdout)["needsReview"] == [
        "system/human.md"
    ]
    assert "needs review: system/human.md" in cli("memory", "sync").stdout  # the desk too
    assert "needs review after a sync: system/human.md" in cli("status").stdout

    assert cli("memory", "remote", "unset").stdout.strip() == "memory remote removed"
    assert "(none;" in cli("memory", "remote", "show").stdout


def test_memory_import_and_export_from_the_command_line(cli, project):
    (project / "CLAUDE.md").write_text("Use pnpm.\n", encoding="utf-8")
    assert cli("memory", "import", ".").stderr.startswith("mini-letta: no agent yet")
    cli("agents", "create")  # importing needs an agent; a read or an import never makes one
    first = cli("memory", "import", ".")
    assert first.code == 0 and "imported projects/project/claude.md" in first.stdout
    assert "unchanged projects/project/claude.md" in cli("memory", "import", "CLAUDE.md").stdout
    missing = cli("memory", "import", "nope.md")
    assert missing.code == 1 and missing.stderr.strip().endswith("/project/nope.md does not exist")
    assert "Use pnpm." in cli("memory", "export").stdout
    (project / "AGENTS.md").write_text("Run make lint.\n", encoding="utf-8")  # the user's own
    refused = cli("memory", "export", "-o", "AGENTS.md")
    assert refused.code == 1 and len(refused.stderr.splitlines()) == 1
    assert "no mini-letta block" in refused.stderr and "--force" in refused.stderr
    assert (project / "AGENTS.md").read_text("utf-8") == "Run make lint.\n"
    written = cli("memory", "export", "-o", "AGENTS.md", "--force")
    assert written.code == 0 and "Use pnpm." in (project / "AGENTS.md").read_text("utf-8")
    again = cli("memory", "import", "AGENTS.md")
    assert "skipped project/AGENTS.md (only mini-letta's own export)" in again.stdout
    assert cli("memory", "export", "--format", "cursor").code == 2
