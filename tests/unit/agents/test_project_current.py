"""The project's current agent and conversation: one typed accessor over settings.local.json."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import CorruptFileError
from mini_letta.home import project_settings_file
from mini_letta.settings import current_agent_id, current_conversation_id, remember_current


def test_a_fresh_project_has_no_current_agent_or_conversation(project):
    assert current_agent_id(project) is None
    assert current_conversation_id(project, "agent-1") is None


def test_remembered_ids_read_back(project):
    remember_current(project, "agent-1", "conv-1")
    assert current_agent_id(project) == "agent-1"
    assert current_conversation_id(project, "agent-1") == "conv-1"
    assert current_conversation_id(project, "agent-2") is None


def test_a_blank_conversation_means_none(project):
    remember_current(project, "agent-1", "")
    assert current_conversation_id(project, "agent-1") is None


def test_a_wrong_type_is_reported_with_the_file(project):
    path = project_settings_file(project)
    path.parent.mkdir()
    path.write_text(json.dumps({"agents": {"agent-1": {"conversationId": 7}}}))
    with pytest.raises(CorruptFileError, match="settings.local.json.*conversationId"):
        current_conversation_id(project, "agent-1")
