"""`mini-letta memory ...` and the mock's 记住 flow, end to end as subprocesses."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from support.secrets import SURFACE_SECRETS

HUMAN = "system/human.md"


def _memory_dir(cli) -> Path:
    """The project agent's memory folder (a chat first: reads never create the agent)."""
    result = cli("memory", "path")
    if result.code != 0:
        assert cli("chat", "-p", "hi").code == 0
        result = cli("memory", "path")
    path = Path(result.stdout.strip())
    assert path.is_absolute() and path.name == "memory", result  # never "" (that is the cwd)
    return path


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def test_remember_flow_end_to_end(cli, project_agent):
    result = cli("chat", "-p", "请记住我喜欢用 vim 写代码。")
    assert result.code == 0, result.stderr
    assert result.stdout == "（mock）我记住了：我喜欢用 vim 写代码\n"
    assert "⚙ memory" in result.stderr
    shown = cli("memory", "show", HUMAN)
    assert shown.code == 0 and "- 我喜欢用 vim 写代码\n" in shown.stdout
    assert "Nothing yet" not in shown.stdout  # the placeholder was replaced
    again = cli("chat", "-p", "remember that I prefer short answers")
    assert again.stdout == "（mock）我记住了：I prefer short answers\n"
    body = cli("memory", "show", HUMAN).stdout
    assert body.index("vim") < body.index("- I prefer short answers")
    log = json.loads(cli("memory", "log", "--json").stdout)
    assert [e["subject"] for e in log] == [
        "Remember: I prefer short answers", "Remember: 我喜欢用 vim 写代码", "Initialize memory",
    ]  # fmt: skip
    assert cli("chat", "-p", "hello").stdout == "（mock）我听到了：hello\n"


def test_remember_flow_stream_json_shows_the_tool_call(cli, project_agent):
    result = cli("chat", "-p", "记住：周五发布", "--output-format", "stream-json")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds == ["system", "message", "message", "tool_call", "tool_result", "message",
                     "message", "result"]  # fmt: skip
    call = json.loads(events[3]["toolCall"]["arguments"])
    assert call["command"] == "insert" and call["path"] == HUMAN
    assert events[4]["isError"] is False and "committed" in events[4]["content"]
    assert events[-1]["result"] == "（mock）我记住了：周五发布"
    assert events[-1]["steps"] == 2


def test_remember_a_secret_is_refused_and_never_stored(cli, project_agent):
    secret = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = cli("chat", "-p", f"记住我的 token 是 {secret}")
    assert result.code == 0
    assert result.stdout.startswith("（mock）没能记住：SecretDetectedError")
    assert "GitHub token" in result.stdout and secret not in result.stdout
    root = _memory_dir(cli)
    objects = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    assert secret.encode() not in objects
    assert secret not in (root / HUMAN).read_text(encoding="utf-8")
    assert json.loads(cli("memory", "status", "--json").stdout)["clean"] is True


def test_memory_path_tree_status(cli, project_agent, home):
    root = _memory_dir(cli)
    assert root.parent.parent == home.root / "agents"
    tree = cli("memory", "tree")
    assert tree.stdout.startswith(f"{root}/\n└── system/\n")
    assert "human.md — What I know" in tree.stdout
    entries = json.loads(cli("memory", "tree", "--json").stdout)
    assert [e["path"] for e in entries] == [HUMAN, "system/persona.md"]
    status = json.loads(cli("memory", "status", "--json").stdout)
    assert status["branch"] == "main" and status["clean"] and status["path"] == str(root)
    (root / "notes.md").write_text("x", encoding="utf-8")
    text = cli("memory", "status").stdout
    assert "?? notes.md" in text and "branch: main at " in text


def test_memory_diff_shows_uncommitted_changes(cli, project_agent):
    root = _memory_dir(cli)
    assert cli("memory", "diff").stdout == "No changes.\n"
    with (root / HUMAN).open("a", encoding="utf-8") as handle:
        handle.write("- typed by hand\n")
    diff = cli("memory", "diff").stdout
    assert "+- typed by hand" in diff
    cli("chat", "-p", "hello")
    assert cli("memory", "diff", "nope-rev").code == 1


def test_memory_show_at_a_revision_and_errors(cli, project_agent):
    cli("chat", "-p", "记住 tea")
    old = cli("memory", "show", HUMAN, "--rev", "HEAD~1")
    assert "Nothing yet" in old.stdout
    missing = cli("memory", "show", "nope.md")
    assert missing.code == 1 and "nope.md is not in memory" in missing.stderr
    escape = cli("memory", "show", "../agent.json")
    assert escape.code == 1 and "'..'" in escape.stderr


def test_memory_validate_reports_each_problem(cli, project_agent):
    root = _memory_dir(cli)
    assert cli("memory", "validate").stdout == "2 files checked, 0 problems\n"
    (root / "bad.md").write_text("no frontmatter\n", encoding="utf-8")
    (root / "empty.md").write_text("---\ndescription: ''\n---\n", encoding="utf-8")
    (root / "leak.md").write_text("---\ndescription: x\n---\nAKIAIOSFODNN7EXAMPLE\n")
    (root / "skills").mkdir()
    (root / "skills" / "flat.md").write_text("---\ndescription: x\n---\n")
    result = cli("memory", "validate", "--json")
    assert result.code == 1
    data = json.loads(result.stdout)
    assert data["valid"] is False and data["files"] == 6
    problems = {p["path"]: p["problem"] for p in data["problems"]}
    assert problems["bad.md"].startswith("missing frontmatter")
    assert "must not be empty" in problems["empty.md"]
    assert problems["leak.md"] == "contains what looks like a secret (AWS access key)"
    assert "SKILL.md" in problems["skills/flat.md"]
    assert "AKIA" not in result.stdout


def test_memory_undo_reverts_and_refuses_conflicts(cli, project_agent):
    cli("chat", "-p", "记住 one")
    cli("chat", "-p", "记住 two")
    root = _memory_dir(cli)
    result = cli("memory", "undo")
    assert result.code == 0 and result.stdout.startswith("reverted ")
    assert "- two" not in (root / HUMAN).read_text(encoding="utf-8")
    # Undoing the first remember now conflicts: the placeholder line it replaced was edited.
    cli("chat", "-p", "记住 three")
    first = json.loads(cli("memory", "log", "--json").stdout)[-2]["sha"]
    before = (_git(root, "rev-parse", "HEAD"), (root / HUMAN).read_bytes())
    conflict = cli("memory", "undo", first)
    assert conflict.code == 1, conflict.stdout
    assert "conflicts with later memory changes in system/human.md" in conflict.stderr
    assert (_git(root, "rev-parse", "HEAD"), (root / HUMAN).read_bytes()) == before
    assert _git(root, "status", "--porcelain") == ""
    assert cli("memory", "undo", "not-a-rev").code == 1


def test_memory_undo_refuses_a_dirty_repo(cli, project_agent):
    root = _memory_dir(cli)
    (root / "x.md").write_text("x")
    result = cli("memory", "undo")
    assert result.code == 1 and "uncommitted changes (x.md)" in result.stderr


def _editor(tmp_path: Path, new_text: str) -> dict[str, str]:
    """An $EDITOR that saves `new_text` over the file it is given: `cp` from a file beside it
    (a Python script as the editor started an interpreter for each edit)."""
    saved = tmp_path / "saved.md"  # written again for each edit, just before it
    saved.write_text(new_text, encoding="utf-8")
    return {"EDITOR": f"cp {shlex.quote(str(saved))}"}


def test_memory_edit_validates_and_commits(cli, project_agent, tmp_path):
    root = _memory_dir(cli)
    text = "---\ndescription: The user\n---\nSam, by hand\n"
    result = cli("memory", "edit", HUMAN, env=_editor(tmp_path, text))
    assert result.code == 0 and result.stdout.startswith("committed ")
    assert (root / HUMAN).read_text(encoding="utf-8") == text
    assert (
        json.loads(cli("memory", "log", "--json").stdout)[0]["subject"] == f"Edit {HUMAN} by hand"
    )
    new = cli("memory", "edit", "notes/new.md", env=_editor(tmp_path, "---\ndescription: N\n---\n"))
    assert new.code == 0 and (root / "notes" / "new.md").exists()


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("no frontmatter\n", "missing frontmatter"),
        ("---\ndescription: x\n---\nsk-proj-abc123DEF456ghi789JKL012mno\n", "OpenAI API key"),
        *(
            (f"---\ndescription: x\n---\n{text}\n", "looks like a secret")
            for text in SURFACE_SECRETS
        ),
    ],
    ids=["invalid", "secret", *(f"pasted-{n}" for n in range(len(SURFACE_SECRETS)))],
)
def test_memory_edit_refuses_and_keeps_memory(cli, project_agent, tmp_path, text, needle):
    root = _memory_dir(cli)
    before = ((root / HUMAN).read_bytes(), _git(root, "rev-parse", "HEAD"))
    result = cli("memory", "edit", HUMAN, env=_editor(tmp_path, text))
    assert result.code == 1 and needle in result.stderr
    assert ((root / HUMAN).read_bytes(), _git(root, "rev-parse", "HEAD")) == before
    assert _git(root, "status", "--porcelain") == ""


def _log_lines(home) -> int:
    (log,) = (home.root / "agents").glob("*/conversations/*/messages.jsonl")
    return len(log.read_bytes().splitlines())


@pytest.mark.parametrize("lost", [".git", "memory", ".git/HEAD"])
def test_lost_memory_stops_every_command_and_is_never_silently_recreated(
    cli, project_agent, home, lost
):
    cli("chat", "-p", "请记住我喜欢用 vim 写代码。")
    root = _memory_dir(cli)
    before = _log_lines(home)
    target = root if lost == "memory" else root / lost
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    for args in (["chat", "-p", "hi"], ["memory", "log"], ["reflect"]):
        result = cli(*args)
        assert result.code == 1, (args, result.stderr)
        (line,) = result.stderr.splitlines()
        assert str(root) in line and "mini-letta memory recover" in line, line
    assert _log_lines(home) == before  # the refused turn appended nothing
    assert not (root / ".git" / "HEAD").exists()
    assert cli("memory", "path").stdout.strip() == str(root)
    for args in (["status"], ["conversations", "list"], ["reflections", "list"]):
        assert cli(*args).code == 0, args  # inspecting the agent still works


def test_memory_recover_keeps_the_files_in_a_first_commit_and_the_old_folder(
    cli, project_agent, home
):
    cli("chat", "-p", "请记住我喜欢用 vim 写代码。")
    root = _memory_dir(cli)
    remembered = (root / HUMAN).read_bytes()
    shutil.rmtree(root / ".git")
    result = cli("memory", "recover")
    assert result.code == 0, result.stderr
    (aside,) = root.parent.glob("memory.corrupt-*")
    assert str(aside) in result.stdout
    assert (aside / HUMAN).read_bytes() == remembered
    assert (root / HUMAN).read_bytes() == remembered
    assert _git(root, "rev-list", "--count", "HEAD").strip() == "1"
    assert _git(root, "status", "--porcelain") == ""
    assert cli("chat", "-p", "hi").code == 0
    again = cli("memory", "recover")
    assert again.code == 0 and "nothing to recover" in again.stdout
    assert len(list(root.parent.glob("memory.corrupt-*"))) == 1


def test_memory_recover_after_the_whole_folder_is_gone_starts_fresh(cli, project_agent):
    root = _memory_dir(cli)
    shutil.rmtree(root)
    result = cli("memory", "recover")
    assert result.code == 0, result.stderr
    assert not list(root.parent.glob("memory.corrupt-*"))
    assert (root / HUMAN).exists() and _git(root, "status", "--porcelain") == ""


def test_missing_git_is_a_clear_start_up_error(cli, tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = cli("chat", "-p", "hi", env={"PATH": str(empty)})
    assert result.code == 1
    assert "git is not installed or not on PATH; install git" in result.stderr


def test_a_hand_edit_past_the_budget_is_told_at_once(cli, project_agent, tmp_path):
    _memory_dir(cli)
    big = "---\ndescription: The user\n---\n" + "".join(
        f"- fact {n}: something the person said about their week and plans\n" for n in range(80)
    )  # ~1,300 tokens; the mock's window of 8,192 gives a file 819
    result = cli("memory", "edit", HUMAN, env=_editor(tmp_path, big))
    assert result.code == 0 and result.stdout.startswith("committed ")
    assert "warning: system/human.md is ~" in result.stderr
    assert "past the per-file cap of 819" in result.stderr
    small = "---\ndescription: The user\n---\n- Sam\n"
    again = cli("memory", "edit", HUMAN, env=_editor(tmp_path, small))
    assert again.code == 0 and "warning" not in again.stderr
