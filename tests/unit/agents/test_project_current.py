"""The project's current agent and conversation: the `Settings` snapshot's accessors."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import CorruptFileError
from mini_letta.home import project_settings_file
from mini_letta.settings import read_settings, remember_current


def test_a_fresh_project_has_no_current_agent_or_conversation(home, project):
    assert read_settings(home, project).current_agent_id() is None
    assert read_settings(home, project).current_conversation_id("agent-1") is None


def test_remembered_ids_read_back(home, project):
    remember_current(project, "agent-1", "conv-1")
    assert read_settings(home, project).current_agent_id() == "agent-1"
    assert read_settings(home, project).current_conversation_id("agent-1") == "conv-1"
    assert read_settings(home, project).current_conversation_id("agent-2") is None


def test_a_blank_conversation_means_none(home, project):
    remember_current(project, "agent-1", "")
    assert read_settings(home, project).current_conversation_id("agent-1") is None


def test_a_wrong_type_is_reported_with_the_file(home, project):
    path = project_settings_file(project)
    path.parent.mkdir()
    path.write_text(json.dumps({"agents": {"agent-1": {"conversationId": 7}}}))
    with pytest.raises(CorruptFileError, match="settings.local.json.*conversationId"):
        read_settings(home, project).current_conversation_id("agent-1")
