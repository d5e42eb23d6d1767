"""A scripted model that uses a skill: listed in the prompt, loaded with the Skill tool, its
reference file read, a path outside it refused; `allowed-tools` widens nothing."""

from __future__ import annotations

import json

import pytest

from support.groups import SDK
from support.scripted_server import openai_stream, openai_tool_call
from support.skills import write_skill

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _env(server) -> dict[str, str]:
    return {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": server.url + "/v1"}


def _chat(cli, server, text, *flags):
    return cli("chat", "-p", text, "--model", "openai/gpt-4o-mini", *flags, env=_env(server))


def _tool_results(recorded) -> list[str]:
    return [m["content"] for m in recorded.body["messages"] if m["role"] == "tool"]


def _call(n, tool, **args):
    return openai_stream("", [openai_tool_call(f"call_{n}", tool, json.dumps(args))])


@SDK
def test_the_model_loads_a_skill_reads_its_reference_and_is_refused_outside(
    cli, scripted_server, tmp_path
):
    user_skills = tmp_path / ".claude" / "skills"  # the CLI's HOME is tmp_path
    folder = write_skill(
        user_skills,
        "release-notes",
        "Write release notes from merged PRs. Use when asked for release notes.",
        body="1. Read references/format.md.\n2. List the changes by kind.\n",
        files={"references/format.md": "## Added\n## Fixed\n"},
    )
    (tmp_path / "private.txt").write_text("not for the model")
    scripted_server.queue(
        _call(1, "Skill", name="release-notes"),
        _call(2, "Read", path=str(folder / "references" / "format.md")),
        _call(3, "Read", path=str(folder / ".." / ".." / ".." / "private.txt")),
        _call(4, "Write", path=str(folder / "references" / "format.md"), content="x"),
        openai_stream("Done."),
    )
    result = _chat(cli, scripted_server, "write the release notes", "--permission-mode",
                   "acceptEdits")  # fmt: skip
    assert result.code == 0, result.stderr
    first, *_, last = scripted_server.requests
    system = first.body["messages"][0]["content"]
    assert "- release-notes (user): Write release notes from merged PRs." in system
    assert "1. Read references/format.md." not in system  # the body waits for the tool
    assert "Skill" in [tool["function"]["name"] for tool in first.body["tools"]]
    loaded, reference, outside, write = _tool_results(last)
    assert '<skill name="release-notes" source="user"' in loaded
    assert "2. List the changes by kind." in loaded
    assert f"- {folder}/references/format.md" in loaded
    assert "## Added" in reference
    assert outside.startswith("PathRefusedError:") and "not for the model" not in outside
    assert "is part of a skill, which the file tools only read" in write
    assert (folder / "references" / "format.md").read_text() == "## Added\n## Fixed\n"
    assert result.stderr.count("⚙ Skill release-notes ✓") == 1


@SDK
def test_allowed_tools_grants_nothing_the_mode_does_not(cli, scripted_server, tmp_path):
    write_skill(
        tmp_path / "project" / ".agents" / "skills",
        "cleanup",
        frontmatter="name: cleanup\ndescription: Clean the build.\nallowed-tools: Bash Write\n",
        body="Run `rm -rf build`.\n",
    )
    scripted_server.queue(
        _call(1, "Skill", name="cleanup"),
        _call(2, "Bash", command="rm -rf build"),
        openai_stream("Could not."),
    )
    result = _chat(cli, scripted_server, "clean up")
    assert result.code == 0, result.stderr
    loaded, bash = _tool_results(scripted_server.requests[-1])
    assert "allowed-tools: Bash Write (the permission mode still decides every call)" in loaded
    assert bash.startswith("PermissionDenied: Bash needs approval and this run is headless")


@SDK
def test_no_skills_means_no_skill_tool_and_an_unchanged_prompt(cli, scripted_server):
    scripted_server.queue(openai_stream("hi"))
    assert _chat(cli, scripted_server, "hello").code == 0
    body = scripted_server.requests[0].body
    assert "Skill" not in [tool["function"]["name"] for tool in body["tools"]]
    assert "available_skills" not in body["messages"][0]["content"]


@SDK
def test_an_invalid_skill_is_warned_about_once_and_the_rest_still_load(
    cli, scripted_server, project
):
    write_skill(project / ".claude" / "skills", "Bad", frontmatter="name: Bad\ndescription: d\n")
    write_skill(project / ".claude" / "skills", "good", "A good skill.")
    scripted_server.queue(openai_stream("hi"))
    result = _chat(cli, scripted_server, "hello")
    assert result.code == 0
    assert result.stderr.count("mini-letta: warning: skipped the skill in") == 1
    assert "[name-lowercase]" in result.stderr
    assert (
        "- good (project): A good skill."
        in scripted_server.requests[0].body["messages"][0]["content"]
    )
