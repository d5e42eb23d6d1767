"""`mini-letta hooks list`, and the README's copy-paste example read as a user would paste it."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.home import project_shared_settings_file
from mini_letta.hooks.config import load_hook_config
from mini_letta.hooks.runner import HookRunner, HookSession
from mini_letta.settings import HookLayer
from support.hooks import hook_entry, hook_script, write_hooks

README = Path(__file__).resolve().parents[3] / "README.md"


def _hooks_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("\n## Hooks\n", 1)[1].split("\n## ", 1)[0]


def test_hooks_list_names_each_hook_and_its_file(cli, home, project):
    write_hooks(home.settings_file, {"Stop": [hook_entry("say done")]})
    shared = project_shared_settings_file(project)
    write_hooks(shared, {"PreToolUse": [hook_entry("guard.sh", "Bash", timeout=5)]})
    result = cli("hooks", "list")
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Stop  say done  60s",
        f"    from user settings: {home.settings_file}",
        "PreToolUse [Bash]  guard.sh  5s",
        f"    from project settings: {shared}",
    ]
    rows = json.loads(cli("hooks", "list", "--json").stdout)["hooks"]
    assert [(r["event"], r["scope"], r["runs"]) for r in rows] == [
        ("Stop", "user", True),
        ("PreToolUse", "project", True),
    ]


def test_hooks_list_without_hooks_says_how_to_add_them(cli):
    result = cli("hooks", "list")
    assert result.code == 0 and result.stdout.startswith("No hooks.")


def test_a_malformed_hooks_object_is_one_line_and_exit_1(cli, home):
    home.root.mkdir(parents=True)
    home.settings_file.write_text('{"hooks": {"Stop": [{"hooks": [{"command": 3}]}]}}')
    result = cli("hooks", "list")
    assert result.code == 1
    assert result.stderr.strip().count("\n") == 0 and "command must be a non-empty string" in (
        result.stderr
    )


def test_the_readme_example_configures_what_it_says(tmp_path):
    section = _hooks_section()
    settings = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    config = load_hook_config([HookLayer("user", tmp_path / "settings.json", settings["hooks"])])
    assert [(c.event, c.matcher) for c in config.commands] == [
        ("PreToolUse", "Bash"),
        ("PostToolUse", "Write|Edit"),
        ("UserPromptSubmit", ""),
        ("PostReflect", ""),
    ]


@pytest.mark.skipif(shutil.which("jq") is None, reason="the README's guard uses jq")
def test_the_readmes_guard_script_blocks_a_force_push(tmp_path):
    body = re.search(r"```sh\n(.*?)```", _hooks_section(), re.S).group(1)
    guard = hook_script(tmp_path, "no-force-push.sh", body.removeprefix("#!/bin/sh\n"))
    config = load_hook_config(
        [HookLayer("user", tmp_path / "s.json", {"PreToolUse": [hook_entry(guard, "Bash")]})]
    )
    runner = HookRunner(
        config,
        HookSession("conv-1", tmp_path / "m.jsonl", tmp_path),
        {"PATH": os.environ["PATH"]},
    )
    push = runner.before_tool(ToolCall("c", "Bash", ""), {"command": "git push --force origin"})
    assert push.decision == "deny" and push.reason.startswith("force-pushing is not allowed")
    assert runner.before_tool(ToolCall("c", "Bash", ""), {"command": "git push"}).decision is None
