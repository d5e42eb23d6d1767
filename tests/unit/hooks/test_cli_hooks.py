"""The hooks around what CLI commands run: `reflect`, the detached reflection worker that the
interactive session's (watched) reflections run in, and `compact`."""

from __future__ import annotations

import json
from pathlib import Path

from mini_letta.cli.background import WORKER_COMMAND
from mini_letta.settings import read_settings
from support.hooks import hook_entry, hook_script, recorder, seen, write_hooks


def _reflect_hooks(home, tmp_path: Path) -> tuple[Path, Path]:
    before, after = tmp_path / "pre.jsonl", tmp_path / "post.jsonl"
    write_hooks(
        home.settings_file,
        {
            "PreReflect": [hook_entry(recorder(tmp_path, "pre.sh", before))],
            "PostReflect": [hook_entry(recorder(tmp_path, "post.sh", after), "manual")],
        },
    )
    return before, after


def test_reflect_runs_the_reflect_hooks_with_the_outcome(cli, home, project, tmp_path):
    assert cli("chat", "-p", "I prefer tabs for indentation").code == 0
    before, after = _reflect_hooks(home, tmp_path)
    result = cli("reflect")
    assert result.code == 0, result.stderr
    [pre], [post] = seen(before), seen(after)
    assert pre["trigger"] == "manual" and pre["hook_event_name"] == "PreReflect"
    assert post["outcome"]["status"] == "merged" and post["outcome"]["trigger"] == "manual"
    assert post["session_id"] == post["outcome"]["conversationId"]


def test_the_reflection_worker_runs_the_reflect_hooks(cli, home, project, tmp_path):
    assert cli("chat", "-p", "I prefer tabs for indentation").code == 0
    settings = read_settings(home, project)
    agent_id = settings.current_agent_id()
    conversation = settings.current_conversation_id(agent_id)
    before, after = _reflect_hooks(home, tmp_path)
    args = ("--agent", agent_id, "--conversation", conversation, "--trigger", "manual")
    assert cli(WORKER_COMMAND, *args).code == 0
    assert [e["trigger"] for e in seen(before)] == ["manual"]
    assert seen(after)[0]["outcome"]["status"] == "merged"


def test_the_compact_command_runs_the_pre_compact_hooks(cli, home, tmp_path):
    for n in range(4):
        assert cli("chat", "-p", f"message number {n} " + "words " * 40).code == 0
    record = tmp_path / "compact.jsonl"
    write_hooks(home.settings_file, {"PreCompact": [hook_entry(recorder(tmp_path, "c", record))]})
    assert cli("compact", "--focus", "the numbers").code == 0
    [event] = seen(record)
    assert (event["trigger"], event["custom_instructions"]) == ("manual", "the numbers")


def test_chat_p_shows_a_blocked_prompt_and_exits_1(cli, home, tmp_path):
    hook = hook_script(tmp_path, "no.sh", 'echo "that looks like a password" >&2; exit 2')
    write_hooks(home.settings_file, {"UserPromptSubmit": [hook_entry(hook)]})
    result = cli("chat", "-p", "my password is hunter2")
    assert result.code == 1 and result.stdout == ""
    assert "a UserPromptSubmit hook blocked the prompt: that looks like a password" in (
        result.stderr
    )


def test_config_names_the_files_that_hook_events(cli, home, project):
    write_hooks(home.settings_file, {"Stop": [hook_entry("a")], "PreToolUse": [hook_entry("b")]})
    rows = json.loads(cli("config", "--json").stdout)
    assert [r for r in rows if r["key"] == "hooks"] == [
        {"key": "hooks", "value": ["PreToolUse", "Stop"], "source": str(home.settings_file)}
    ]
