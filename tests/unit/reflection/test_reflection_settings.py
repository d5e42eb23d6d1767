"""Reflection settings: one layering function, validation, rendering, and where saves go."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import ConfigError, InvalidValueError
from mini_letta.reflection.state.settings import (
    DEFAULT_SETTINGS,
    ReflectionSettings,
    build_settings_patch,
    is_auto_reflection_enabled,
    layer_settings,
    load_reflection_settings,
    render_settings_json,
    save_reflection_settings,
)
from mini_letta.settings import load_global_settings, read_settings
from support.agents import fresh_agent


def test_defaults_are_the_chapters():
    assert DEFAULT_SETTINGS.to_json() == {
        "trigger": "compaction-event",
        "stepCount": 25,
        "merge": "auto",
        "mergeInstructions": "",
        "memorySync": "off",
        "model": "",
        "baseUrl": "",
        "systemBudgetPercent": 25,
        "fileBudgetPercent": 10,
        "reviewModel": "",
        "reviewBaseUrl": "",
        "keepRuns": 200,
        "keepRunDays": 30,
    }


LAYERS = [
    pytest.param([], DEFAULT_SETTINGS, id="no-layers"),
    pytest.param([("g", None), ("a", None), ("l", None)], DEFAULT_SETTINGS, id="all-absent"),
    pytest.param(
        [("g", {"trigger": "step-count", "stepCount": 9}), ("a", {"stepCount": 3})],
        ReflectionSettings("step-count", 3),
        id="agent-overrides-one-key-of-global",
    ),
    pytest.param(
        [("g", {"trigger": "off"}), ("a", {}), ("l", {"trigger": "step-count"})],
        ReflectionSettings("step-count"),
        id="local-beats-agent-and-global",
    ),
    pytest.param(
        [("g", {"stepCount": 7}), ("a", {"stepCount": None})],
        DEFAULT_SETTINGS,
        id="null-resets-to-default-not-inherit",
    ),
    pytest.param(
        [("g", {"stepCount": 7}), ("a", {"trigger": "off"})],
        ReflectionSettings("off", 7),
        id="missing-key-inherits",
    ),
    pytest.param(
        [("a", {"merge": "explicit", "mergeInstructions": "  be strict  "})],
        ReflectionSettings(merge="explicit", merge_instructions="be strict"),
        id="instructions-trimmed",
    ),
    pytest.param(
        [("a", {"trigger": "off", "unknownKey": 1})],
        ReflectionSettings("off"),
        id="unknown-keys-ignored",
    ),
]


@pytest.mark.parametrize(("layers", "expected"), LAYERS)
def test_layer_settings_table(layers, expected):
    assert layer_settings(layers) == expected


BAD = [
    pytest.param({"trigger": "sometimes"}, "off, step-count, compaction-event", id="trigger"),
    pytest.param({"stepCount": 0}, "an integer > 0", id="zero-steps"),
    pytest.param({"stepCount": "3"}, "an integer > 0", id="string-steps"),
    pytest.param({"stepCount": True}, "an integer > 0", id="bool-steps"),
    pytest.param({"merge": "yolo"}, "auto, explicit", id="merge"),
    pytest.param({"mergeInstructions": 5}, "text", id="instructions"),
]


@pytest.mark.parametrize(("layer", "allowed"), BAD)
def test_bad_file_values_name_the_file_and_the_allowed_values(layer, allowed):
    with pytest.raises(ConfigError) as err:
        layer_settings([("/x/agent.json", layer)])
    message = str(err.value)
    assert message.startswith("/x/agent.json: reflection.")
    assert allowed in message
    assert "\n" not in message


FLAGS = [
    pytest.param({"trigger": "x"}, "invalid --trigger 'x' (allowed: off, step-count", id="trigger"),
    pytest.param({"steps": "0"}, "invalid --steps '0' (allowed: an integer > 0)", id="zero"),
    pytest.param({"steps": "-3"}, "invalid --steps '-3'", id="negative"),
    pytest.param({"steps": "three"}, "invalid --steps 'three'", id="word"),
    pytest.param(
        {"merge": "maybe"}, "invalid --merge 'maybe' (allowed: auto, explicit)", id="merge"
    ),
]


@pytest.mark.parametrize(("flags", "expected"), FLAGS)
def test_bad_flags_are_usage_errors(flags, expected):
    with pytest.raises(InvalidValueError) as err:
        build_settings_patch(**flags)
    assert err.value.exit_code == 2
    assert expected in str(err.value)


def test_patch_holds_only_given_flags():
    assert build_settings_patch(trigger="step-count", steps=" 3 ") == {
        "trigger": "step-count",
        "stepCount": 3,
    }
    assert build_settings_patch() == {}


RENDER = [
    pytest.param(
        ReflectionSettings("step-count", 3), '{"trigger":"step-count","stepCount":3}', id="chapter"
    ),
    pytest.param(DEFAULT_SETTINGS, '{"trigger":"compaction-event","stepCount":25}', id="defaults"),
    pytest.param(
        ReflectionSettings(merge="explicit"),
        '{"trigger":"compaction-event","stepCount":25,"merge":"explicit"}',
        id="explicit",
    ),
    pytest.param(
        ReflectionSettings(merge_instructions="只合并偏好"),
        '{"trigger":"compaction-event","stepCount":25,"mergeInstructions":"只合并偏好"}',
        id="instructions-unicode",
    ),
]


@pytest.mark.parametrize(("settings", "text"), RENDER)
def test_render_settings_json(settings, text):
    assert render_settings_json(settings) == text


def test_save_goes_to_agent_json_by_default(world):
    agent = fresh_agent(world)
    effective = save_reflection_settings(
        world.home, world.cwd, agent, {"trigger": "step-count", "stepCount": 3}, "agent"
    )
    assert effective == ReflectionSettings("step-count", 3)
    stored = json.loads(world.home.agent_file(agent.id).read_text())
    assert stored["reflection"] == {"trigger": "step-count", "stepCount": 3}
    assert "reflection" not in load_global_settings(world.home)


def test_save_global_and_local_layers(world):
    agent = fresh_agent(world)
    save_reflection_settings(world.home, world.cwd, agent, {"stepCount": 40}, "global")
    save_reflection_settings(world.home, world.cwd, agent, {"trigger": "off"}, "local")
    assert load_global_settings(world.home)["reflection"] == {"stepCount": 40}
    local = read_settings(world.home, world.cwd).local_data["agents"][agent.id]["reflection"]
    assert local == {"trigger": "off"}
    assert load_reflection_settings(world.home, world.cwd, agent) == ReflectionSettings("off", 40)


def test_save_merges_into_the_existing_layer(world):
    agent = fresh_agent(world)
    save_reflection_settings(world.home, world.cwd, agent, {"trigger": "step-count"}, "agent")
    effective = save_reflection_settings(world.home, world.cwd, agent, {"stepCount": 5}, "agent")
    assert effective == ReflectionSettings("step-count", 5)


def test_non_object_global_reflection_is_a_config_error(world):
    agent = fresh_agent(world)
    world.home.settings_file.write_text('{"reflection": "on"}')
    with pytest.raises(ConfigError, match="settings.json: reflection must be an object"):
        load_reflection_settings(world.home, world.cwd, agent)


@pytest.mark.parametrize(
    ("platform", "environ", "enabled"),
    [
        ("linux", {}, True),
        ("darwin", {}, True),
        ("win32", {}, False),
        ("win32", {"MINI_LETTA_ENABLE_WINDOWS_AUTO_REFLECTION": "1"}, True),
        ("win32", {"MINI_LETTA_ENABLE_WINDOWS_AUTO_REFLECTION": "yes"}, False),
    ],
    ids=["linux", "mac", "windows", "windows-enabled", "windows-not-1"],
)
def test_windows_switch(platform, environ, enabled):
    assert is_auto_reflection_enabled(platform, environ) is enabled


def test_memory_sync_is_a_layered_setting_shown_only_when_on():
    layers = [("agent.json", {"memorySync": "after-merge"})]
    settings = layer_settings(layers)
    assert settings.memory_sync == "after-merge"
    assert render_settings_json(settings).endswith(',"memorySync":"after-merge"}')
    assert "memorySync" not in render_settings_json(layer_settings([]))
    with pytest.raises(ConfigError, match="memorySync 'sometimes' is not allowed"):
        layer_settings([("agent.json", {"memorySync": "sometimes"})])
    with pytest.raises(InvalidValueError, match="invalid --memory-sync"):
        build_settings_patch(memory_sync="always")


def test_the_gate_budgets_are_layered_percentages_shown_when_changed():
    settings = layer_settings([("agent.json", {"systemBudgetPercent": 40, "fileBudgetPercent": 5})])
    assert (settings.system_budget_percent, settings.file_budget_percent) == (40, 5)
    assert render_settings_json(settings).endswith(
        ',"systemBudgetPercent":40,"fileBudgetPercent":5}'
    )
    for bad in (0, 101, "25", True):
        with pytest.raises(ConfigError, match="systemBudgetPercent .* is not allowed"):
            layer_settings([("agent.json", {"systemBudgetPercent": bad})])
