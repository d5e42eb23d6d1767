"""One damaged entry never hides the others: listings show the good ones and name the bad one."""

from __future__ import annotations

import json


def _agent_id(cli) -> str:
    return json.loads(cli("agents", "show", "--json").stdout)["id"]


def _check(result, good: list[str], path, problem: str) -> None:
    assert result.code == 0, result.stderr
    for item in good:
        assert item in result.stdout
    (line,) = [line for line in result.stdout.splitlines() if "damaged" in line]
    assert str(path) in line and problem in line


def _check_json(result, good: list[str], path, problem: str, key: str = "id") -> None:
    assert result.code == 0, result.stderr
    entries = json.loads(result.stdout)
    assert [e[key] for e in entries if not e.get("damaged")] == good
    (bad,) = [e for e in entries if e.get("damaged")]
    assert bad["path"] == str(path) and problem in bad["problem"]


def test_conversations_list_marks_a_corrupt_conversation(cli, project_agent, home):
    cli("chat", "-p", "one")
    cli("chat", "-p", "two", "--new")
    agent = home.root / "agents" / _agent_id(cli)
    good, bad = sorted(agent.glob("conversations/*/conversation.json"))
    bad.write_text("{torn")
    _check(cli("conversations", "list"), [good.parent.name], bad, "invalid JSON")
    _check_json(cli("conversations", "list", "--json"), [good.parent.name], bad, "invalid JSON")


def test_reflections_list_marks_a_corrupt_run_record(cli, reflected, home):
    cli("chat", "-p", "我叫李雷")  # after a turn and its merged run
    cli("reflect")
    agent = home.root / "agents" / _agent_id(cli)
    first, second = sorted(agent.glob("reflections/*-*.json"))
    first.write_text('{"schemaVersion": 1, "runId": 5}')
    _check(cli("reflections", "list"), [second.stem], first, "runId")
    _check_json(cli("reflections", "list", "--json"), [second.stem], first, "runId", "runId")


def test_agents_list_marks_a_corrupt_agent(cli, home):
    cli("agents", "create", "--name", "good")
    cli("agents", "create", "--name", "bad")
    agents = {
        json.loads(path.read_text())["name"]: path
        for path in (home.root / "agents").glob("*/agent.json")
    }
    agents["bad"].write_bytes(b"\xff\xfe")
    good_id = agents["good"].parent.name
    _check(cli("agents", "list"), [good_id], agents["bad"], "UTF-8")
    _check_json(cli("agents", "list", "--json"), [good_id], agents["bad"], "UTF-8")
