"""Which agent a command uses: reads never create one; only `chat` and `agents create` do."""

from __future__ import annotations

import json

import pytest

NO_AGENT = "no agent yet for the project at {}; run `mini-letta chat` or `mini-letta agents create`"


def _agent_ids(cli) -> list[str]:
    return [agent["id"] for agent in json.loads(cli("agents", "list", "--json").stdout)]


@pytest.mark.parametrize(
    "args",
    [
        ["memory", "path"],
        ["agents", "show"],
        ["conversations", "list"],
        ["reflections", "list"],
        ["agents", "set", "--temperature", "0.5"],
        ["compact"],
    ],
    ids=["memory-path", "agents-show", "conversations-list", "reflections-list", "set", "compact"],
)
def test_a_read_in_a_fresh_project_creates_no_agent(cli, project, args):
    result = cli(*args)
    assert result.code == 1, result.stderr
    assert result.stderr.strip() == f"mini-letta: {NO_AGENT.format(project)}"
    assert _agent_ids(cli) == []


def test_after_deleting_another_agent_reads_use_the_projects_remaining_one(cli, home):
    first = json.loads(cli("chat", "-p", "hi", "--output-format", "json").stdout)["agentId"]
    assert cli("agents", "create", "--name", "other").code == 0  # becomes the project's current
    assert cli("agents", "delete", "other", "--yes").code == 0
    result = cli("memory", "path")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == str(home.memory_dir(first))
    assert "no longer exists" in result.stderr and first in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert _agent_ids(cli) == [first]
    again = json.loads(cli("chat", "-p", "back", "--output-format", "json").stdout)
    assert again["agentId"] == first  # and the chat makes it current again, quietly
    assert cli("memory", "path").stderr == ""


def test_a_deleted_current_agent_with_several_left_asks_to_pick(cli):
    cli("agents", "create", "--name", "one")
    cli("agents", "create", "--name", "two")
    cli("agents", "create", "--name", "three")
    cli("agents", "delete", "three", "--yes")
    for args in (["memory", "path"], ["chat", "-p", "hi"]):
        result = cli(*args)
        assert result.code == 1
        assert "--agent" in result.stderr and "one" in result.stderr and "two" in result.stderr
    assert len(_agent_ids(cli)) == 2


def test_a_deleted_only_agent_is_replaced_by_the_next_chat_not_by_a_read(cli):
    cli("agents", "create", "--name", "solo")
    cli("agents", "delete", "solo", "--yes")
    assert cli("memory", "path").code == 1
    assert _agent_ids(cli) == []
    assert cli("chat", "-p", "hi").code == 0
    assert len(_agent_ids(cli)) == 1


def test_the_model_of_the_chat_that_creates_the_agent_is_the_agents(cli, project):
    (project / "s.json").write_text('["scripted"]')
    first = cli("chat", "-p", "hi", "--model", "script:s.json")
    assert first.code == 0 and first.stdout == "scripted\n", first.stderr
    (agent,) = json.loads(cli("agents", "list", "--json").stdout)
    assert agent["model"] == "script:s.json"
    once = cli("chat", "-p", "a run of its own", "--model", "mock")  # that run's, not the agent's
    assert once.code == 0 and once.stdout.startswith("（mock）"), once.stderr
    later = cli("chat", "-p", "again")  # the agent's own model: the script, replayed afresh
    assert later.code == 0 and later.stdout == "scripted\n", later.stderr


def test_agents_create_and_set_store_the_model(cli):
    assert cli("agents", "create", "--name", "m", "--model", "ollama/qwen3").code == 0
    assert json.loads(cli("agents", "show", "--json").stdout)["model"] == "ollama/qwen3"
    assert cli("agents", "set", "--model", "mock").code == 0
    assert json.loads(cli("agents", "show", "--json").stdout)["model"] == "mock"
