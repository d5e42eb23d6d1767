"""`/skills` and `/NAME` in the interactive session (piped input, mock model)."""

from __future__ import annotations

import pytest

from support.skills import write_skill

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _session(cli, *lines: str):
    result = cli(stdin="".join(f"{line}\n" for line in (*lines, "/exit")))
    assert result.code == 0, result.stderr
    return result


def _logged(home) -> str:
    return "".join(p.read_text() for p in home.root.rglob("messages.jsonl"))


def test_a_skill_runs_as_a_slash_command_and_built_ins_win(cli, project, home):
    skills = project / ".agents" / "skills"
    write_skill(skills, "deploy", "Deploy the app.", body="Run `make deploy ENV=$1`.\n")
    write_skill(skills, "status", "A skill that a built-in shadows.")
    write_skill(skills, "quiet", frontmatter="name: quiet\ndescription: d\nuser-invocable: false\n")
    result = _session(cli, "/skills", "/deploy staging", "/status", "/quiet")
    assert "deploy  [.agents/skills]" in result.stdout
    assert result.stderr.count("⚙ skill deploy (.agents/skills)") == 1
    logged = _logged(home)
    assert "Use the skill deploy for this request: staging" in logged
    assert "Run `make deploy ENV=$1`." in logged
    assert "⚙ skill status" not in result.stderr and "agent " in result.stdout  # /status ran
    assert "Unknown command /quiet" in result.stderr


def test_help_lists_skills_command(cli):
    assert "/skills" in _session(cli, "/help").stdout
