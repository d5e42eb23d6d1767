"""`mini-letta skills list|show|validate|import|export`, in process against real folders."""

from __future__ import annotations

import json
import subprocess

import pytest

from support.skills import write_skill

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _agent(cli):
    result = cli("chat", "-p", "hi", "--model", "mock")
    assert result.code == 0, result.stderr


def _memory(cli) -> str:
    return cli("memory", "path").stdout.strip()


def test_list_shows_name_source_description_size_and_json(cli, project, tmp_path):
    write_skill(project / ".claude" / "skills", "fmt", "Format the code.")
    write_skill(tmp_path / ".agents" / "skills", "fmt", "The user's fmt.")
    write_skill(tmp_path / ".agents" / "skills", "lint", "Lint the code.")
    write_skill(project / ".agents" / "skills", "Broken", frontmatter="name: Broken\n")
    result = cli("skills", "list")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("fmt  [.claude/skills]  ") and lines[0].endswith("Format the code.")
    assert lines[1].startswith("lint  [~/.agents/skills]  ")
    assert "hidden: skill 'fmt' in ~/.agents/skills is hidden by the one in .claude/skills" in (
        result.stdout
    )
    assert "invalid: skipped the skill in" in result.stdout and "[name-lowercase]" in result.stdout
    data = json.loads(cli("skills", "list", "--json").stdout)
    assert [(s["name"], s["source"]) for s in data["skills"]] == [
        ("fmt", "project"),
        ("lint", "user"),
    ]
    assert data["skills"][0]["size"] > 0 and len(data["invalid"]) == 1


def test_show_prints_the_body_and_files(cli, project):
    write_skill(project / ".agents" / "skills", "fmt", "Format.", body="Run black.\n",
                files={"scripts/fmt.sh": "black ."})  # fmt: skip
    out = cli("skills", "show", "fmt").stdout
    assert "Run black." in out and "- .agents/skills/fmt/scripts/fmt.sh" in out
    missing = cli("skills", "show", "nope")
    assert missing.code == 1 and "no skill named 'nope' (skills: fmt)" in missing.stderr


def test_validate_a_path_and_everything(cli, project, tmp_path):
    good = write_skill(tmp_path / "elsewhere", "good")
    assert cli("skills", "validate", str(good)).code == 0
    bad = write_skill(tmp_path / "elsewhere", "bad", frontmatter="name: other\ndescription: d\n")
    result = cli("skills", "validate", str(bad))
    assert result.code == 1 and "[name-folder]" in result.stdout
    folder = cli("skills", "validate", str(tmp_path / "elsewhere"))
    assert folder.code == 1 and "ok       good" in folder.stdout
    assert cli("skills", "validate").stdout == "No skills found.\n"
    assert cli("skills", "validate", str(tmp_path / "nowhere")).code == 1


def test_import_a_folder_into_memory_commits_it(cli, tmp_path):
    _agent(cli)
    source = write_skill(tmp_path / "src", "deploy", "Deploy the app.",
                         files={"scripts/go.sh": "make deploy\n"})  # fmt: skip
    (source / ".secret-notes").write_text("hidden")
    result = cli("skills", "import", str(source))
    assert result.code == 0, result.stderr
    memory = _memory(cli)
    log = subprocess.run(["git", "-C", memory, "log", "-1", "--name-only", "--format=%s"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert log.split("\n")[0] == "skills: import deploy"
    assert "skills/deploy/SKILL.md" in log and "skills/deploy/scripts/go.sh" in log
    assert ".secret-notes" not in log
    assert json.loads(cli("skills", "list", "--json").stdout)["skills"][0]["source"] == "memory"
    again = cli("skills", "import", str(source))
    assert again.code == 1 and "already exists" in again.stderr


def test_import_refuses_invalid_skills_and_secrets(cli, tmp_path):
    _agent(cli)
    bad = write_skill(tmp_path / "src", "bad", frontmatter="name: BAD\ndescription: d\n")
    result = cli("skills", "import", str(bad))
    assert result.code == 1 and "[name-lowercase]" in result.stderr
    token = "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
    leaky = write_skill(tmp_path / "src", "leaky", "Leaks.", files={"notes.md": f"token {token}"})
    result = cli("skills", "import", str(leaky))
    assert result.code == 1 and "looks like a secret" in result.stderr
    assert json.loads(cli("skills", "list", "--json").stdout)["skills"] == []


def test_import_from_a_git_url_and_export(cli, tmp_path, project):
    repo = tmp_path / "skills-repo"
    write_skill(repo / "skills", "review", "Review a PR.", files={"references/checklist.md": "x"})
    write_skill(repo / "skills", "triage", "Triage issues.")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "skills"], check=True)
    result = cli("skills", "import", f"file://{repo}", "--to", "project")
    assert result.code == 0, result.stderr
    assert "Imported review into project" in result.stdout
    installed = project / ".agents" / "skills"
    assert (installed / "review" / "references" / "checklist.md").read_text() == "x"
    assert not (installed / "review" / ".git").exists()
    out = tmp_path / "out"
    assert cli("skills", "export", "triage", "-o", str(out)).code == 0
    assert (out / "triage" / "SKILL.md").read_text().startswith("---\nname: triage\n")
    again = cli("skills", "export", "triage", "-o", str(out))
    assert again.code == 1 and "already exists" in again.stderr


def test_status_counts_skills_by_source(cli, project, tmp_path):
    _agent(cli)
    write_skill(project / ".claude" / "skills", "fmt")
    write_skill(tmp_path / ".claude" / "skills", "lint")
    write_skill(tmp_path / ".claude" / "skills", "fmt")
    write_skill(tmp_path / ".claude" / "skills", "Bad", frontmatter="name: Bad\n")
    out = cli("status").stdout
    assert "skills      2 (memory 0, project 1, user 1, 1 invalid, 1 hidden;" in out
    data = json.loads(cli("status", "--output-format", "json").stdout)
    assert data["skills"] == {"memory": 0, "project": 1, "user": 1, "invalid": 1, "hidden": 1}


def test_import_refuses_a_symlinked_skill_file(cli, tmp_path, project):
    real = write_skill(tmp_path / "real", "linked")
    folder = tmp_path / "src" / "linked"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(real / "SKILL.md")
    result = cli("skills", "import", str(folder), "--to", "project")
    assert result.code == 1 and "is a symlink" in result.stderr
    assert not (project / ".agents" / "skills" / "linked").exists()


def test_an_imported_skills_own_files_are_not_memory_notes(cli, tmp_path):
    _agent(cli)
    source = write_skill(tmp_path / "src", "deploy", "Deploy the app.",
                         files={"references/guide.md": "no frontmatter here\n"})  # fmt: skip
    assert cli("skills", "import", str(source)).code == 0
    validate = cli("memory", "validate")
    assert validate.code == 0 and "0 problems" in validate.stdout
    tree = cli("memory", "tree").stdout
    assert "guide.md — (a file of the skill deploy)" in tree
