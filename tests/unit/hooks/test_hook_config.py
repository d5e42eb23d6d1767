"""The settings files' `hooks`, in Claude Code's shape: matchers, sources, and bad objects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mini_letta.errors import ConfigError
from mini_letta.home import project_shared_settings_file
from mini_letta.hooks.config import load_hook_config, matcher_applies
from mini_letta.settings import HookLayer, read_settings
from support.hooks import hook_entry, write_hooks


@pytest.mark.parametrize(
    ("matcher", "tool", "applies"),
    [
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # a plain name is exact
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Read", False),
        ("*", "Anything", True),
        ("", "Anything", True),
        ("Notebook.*", "NotebookEdit", True),
        ("mcp__memory__.*", "mcp__memory__create", True),
        ("mcp__memory__.*", "Read", False),
        ("^(Read|Grep)$", "Grep", True),
    ],
    ids=lambda v: repr(v),
)
def test_matcher_applies_as_claude_code_reads_it(matcher, tool, applies):
    assert matcher_applies(matcher, tool) is applies


def _layer(hooks: object, scope: str = "user") -> HookLayer:
    return HookLayer(scope, Path(f"/{scope}/settings.json"), hooks)  # type: ignore[arg-type]


def test_hooks_of_every_file_are_kept_with_their_file_in_order(home, project):
    home.root.mkdir(parents=True)
    entry = {"hooks": [{"type": "command", "command": "echo {}"}]}
    home.settings_file.write_text(json.dumps({"hooks": {"Stop": [entry]}}), encoding="utf-8")
    shared = project_shared_settings_file(project)
    shared.parent.mkdir()
    shared.write_text(json.dumps({"hooks": {"PreToolUse": [{**entry, "matcher": "Bash"}]}}))
    local = shared.parent / "settings.local.json"
    local.write_text(json.dumps({"hooks": {"PreToolUse": [{**entry, "matcher": "*"}]}}))
    config = load_hook_config(read_settings(home, project).hook_layers())
    found = [(c.event, c.matcher, c.scope, c.file) for c in config.commands]
    assert found == [
        ("Stop", "", "user", home.settings_file),
        ("PreToolUse", "Bash", "project", shared),
        ("PreToolUse", "*", "local", local),
    ]
    assert [c.scope for c in config.for_event("PreToolUse", "Bash")] == ["project", "local"]
    assert [c.scope for c in config.for_event("PreToolUse", "Read")] == ["local"]
    assert config.commands[0].timeout == 60.0


def test_settings_without_hooks_have_no_layers(home, project):
    assert read_settings(home, project).hook_layers() == ()


def test_events_and_types_never_fired_are_listed_but_never_run():
    config = load_hook_config(
        [
            _layer(
                {
                    "Notification": [{"hooks": [{"type": "command", "command": "notify"}]}],
                    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is it done?"}]}],
                }
            )
        ]
    )
    assert [(c.event, c.kind, c.runs) for c in config.commands] == [
        ("Notification", "command", False),
        ("Stop", "prompt", False),
    ]
    assert config.for_event("Stop") == []


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ([], "hooks must be an object of events"),
        ({"Stop": {}}, "hooks.Stop must be a list of matcher groups"),
        ({"Stop": ["echo"]}, "hooks.Stop[0] must be an object"),
        ({"Stop": [{"hooks": "echo"}]}, "hooks.Stop[0].hooks must be a list"),
        ({"Stop": [{"hooks": [{"command": ""}]}]}, "command must be a non-empty string"),
        ({"Stop": [{"hooks": [{"command": "x", "timeout": 0}]}]}, "timeout must be a number"),
        ({"Stop": [{"hooks": [{"command": "x", "timeout": True}]}]}, "timeout must be a number"),
        ({"PreToolUse": [{"matcher": "(", "hooks": []}]}, "not a valid regular expression"),
        ({"PreToolUse": [{"matcher": 3, "hooks": []}]}, "matcher must be a string"),
    ],
    ids=[
        "not-object",
        "event-not-list",
        "group-not-object",
        "hooks-not-list",
        "empty-command",
        "zero-timeout",
        "bool-timeout",
        "bad-regex",
        "matcher-not-string",
    ],
)
def test_a_malformed_hooks_object_is_one_line_naming_the_file(hooks, message):
    with pytest.raises(ConfigError) as caught:
        load_hook_config([_layer(hooks)])
    text = str(caught.value)
    assert message in text and "/user/settings.json" in text and "\n" not in text


def test_a_project_whose_folder_is_the_home_reads_its_settings_once(tmp_path):
    from mini_letta.home import Home

    home = Home(tmp_path / ".mini-letta")  # ~/.mini-letta, chatting in ~
    write_hooks(home.settings_file, {"Stop": [hook_entry("say done")]})
    settings = read_settings(home, tmp_path)
    assert [layer.scope for layer in settings.hook_layers()] == ["user"]
