"""`agents` and `conversations` commands."""

from __future__ import annotations

import json


def test_agents_create_list_show_rename_delete(cli):
    created = json.loads(cli("agents", "create", "--name", "helper", "--json").stdout)
    assert created["name"] == "helper" and created["model"] == "mock"
    listed = json.loads(cli("agents", "list", "--json").stdout)
    assert [a["id"] for a in listed] == [created["id"]]
    shown = json.loads(cli("agents", "show", "--agent", "helper", "--json").stdout)
    assert shown["id"] == created["id"]
    assert cli("agents", "rename", "helper", "buddy").code == 0
    assert json.loads(cli("agents", "show", "--agent", "buddy", "--json").stdout)["name"] == "buddy"
    refused = cli("agents", "delete", "buddy", stdin="n\n")
    assert refused.code == 1 and "not deleted" in refused.stderr
    assert cli("agents", "delete", "buddy", "--yes").code == 0
    assert json.loads(cli("agents", "list", "--json").stdout) == []


def test_agent_name_collision_and_bad_name(cli):
    assert cli("agents", "create", "--name", "one").code == 0
    again = cli("agents", "create", "--name", "one")
    assert again.code == 2 and "already exists" in again.stderr
    bad = cli("agents", "create", "--name", "../x")
    assert bad.code == 2 and "invalid agent name" in bad.stderr


def test_chat_uses_the_created_agent(cli):
    created = json.loads(cli("agents", "create", "--name", "main", "--json").stdout)
    data = json.loads(cli("chat", "-p", "hi", "--output-format", "json").stdout)
    assert data["agentId"] == created["id"]


def test_conversations_list_marks_current(cli):
    data = json.loads(cli("chat", "-p", "hello there", "--output-format", "json").stdout)
    listing = cli("conversations", "list").stdout
    assert "* " + data["conversationId"] in listing and "hello there" in listing
    listed = json.loads(cli("conversations", "list", "--json").stdout)
    assert listed[0]["id"] == data["conversationId"]
