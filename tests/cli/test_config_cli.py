"""`mini-letta config`: each setting in effect, its value and where it came from."""

from __future__ import annotations

import json


def _rows(cli, **kwargs: object) -> dict[str, tuple[object, str]]:
    result = cli("config", "--json", **kwargs)
    assert result.code == 0, result.stderr
    return {row["key"]: (row["value"], row["source"]) for row in json.loads(result.stdout)}


def test_a_fresh_home_shows_defaults_and_makes_no_agent(cli, home):
    rows = _rows(cli)
    assert rows["defaultModel"] == ("mock", "default")
    assert rows["reflection.trigger"] == ("compaction-event", "default")
    assert rows["lastAgentId"] == (None, "default")
    assert not (home.root / "agents").exists()


def test_each_layer_names_its_file(cli, home, project):
    home.root.mkdir(parents=True)
    home.settings_file.write_text(
        json.dumps({"defaultModel": "openai/gpt-4o", "reflection": {"stepCount": 9}}),
        encoding="utf-8",
    )
    assert cli("chat", "-p", "hi", "--model", "mock").code == 0
    assert cli("sleeptime", "--trigger", "step-count").code == 0  # agent.json
    assert cli("sleeptime", "--merge", "explicit", "--local").code == 0
    local = str(project / ".mini-letta" / "settings.local.json")
    rows = _rows(cli)
    assert rows["defaultModel"] == ("openai/gpt-4o", str(home.settings_file))
    assert rows["reflection.stepCount"] == (9, str(home.settings_file))
    assert rows["reflection.trigger"][0] == "step-count"
    assert rows["reflection.trigger"][1].endswith("agent.json")
    assert rows["reflection.merge"] == ("explicit", local)
    assert rows["lastAgentId"][1] == local


def test_the_environment_wins_for_the_default_model(cli):
    rows = _rows(cli, env={"MINI_LETTA_MODEL": "anthropic/claude-sonnet-4-5"})
    assert rows["defaultModel"] == ("anthropic/claude-sonnet-4-5", "$MINI_LETTA_MODEL")


def test_text_lists_one_line_per_setting(cli):
    lines = cli("config").stdout.splitlines()
    assert lines[0].split() == ["defaultModel", '"mock"', "default"]
    assert len(lines) == len(_rows(cli))


def test_a_bad_value_is_one_line_naming_the_file(cli, home):
    home.root.mkdir(parents=True)
    home.settings_file.write_text('{"bashEnvAllow": "TOKEN"}', encoding="utf-8")
    result = cli("config")
    assert result.code == 1 and "bashEnvAllow must be a list" in result.stderr
    assert "Traceback" not in result.stderr
