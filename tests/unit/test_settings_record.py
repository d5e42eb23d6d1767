"""settings.py `Settings`: both files read once, values checked when asked, sources named."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import CorruptFileError
from mini_letta.reflection.state.settings import layer_sources
from mini_letta.settings import Setting, read_settings, remember_current


def test_a_snapshot_keeps_what_it_read(home, project):
    remember_current(project, "agent-1", "conv-1")
    files = read_settings(home, project)
    remember_current(project, "agent-2", "conv-2")
    assert files.current_agent_id() == "agent-1"  # a snapshot: read again to see a write
    assert read_settings(home, project).current_agent_id() == "agent-2"
    assert read_settings(home, project).used_agent_ids() == ["agent-1", "agent-2"]


def test_origins_name_the_default_the_environment_or_the_file(home, project):
    files = read_settings(home, project)
    assert files.origins({}) == [
        Setting("defaultModel", "mock", "default"),
        Setting("bashEnvAllow", [], "default"),
        Setting("lastAgentId", None, "default"),
    ]
    home.root.mkdir(parents=True)
    home.settings_file.write_text(json.dumps({"bashEnvAllow": ["B", "A"]}), encoding="utf-8")
    origins = read_settings(home, project).origins({"MINI_LETTA_MODEL": " openai/x "})
    assert origins[0] == Setting("defaultModel", "openai/x", "$MINI_LETTA_MODEL")
    assert origins[1] == Setting("bashEnvAllow", ["A", "B"], str(home.settings_file))


def test_a_bad_value_fails_only_when_asked_for(home, project):
    home.root.mkdir(parents=True)
    home.settings_file.write_text('{"defaultModel": 3}', encoding="utf-8")
    files = read_settings(home, project)
    assert files.bash_env_allow() == frozenset()
    with pytest.raises(CorruptFileError, match="defaultModel must be a string"):
        files.default_model({})


def test_a_badly_shaped_project_file_is_refused_at_once(home, project):
    (project / ".mini-letta").mkdir()
    (project / ".mini-letta" / "settings.local.json").write_text('{"agents": []}')
    with pytest.raises(CorruptFileError, match="agents must be an object"):
        read_settings(home, project)


def test_layer_sources_take_the_highest_layer_and_null_means_default():
    layers = [
        ("global", {"trigger": "off", "stepCount": 5}),
        ("agent", None),
        ("local", {"trigger": None, "merge": "explicit"}),
    ]
    sources = layer_sources(layers)
    assert sources["stepCount"] == "global"
    assert sources["trigger"] == "default"
    assert sources["merge"] == "local"
    assert sources["model"] == "default"
