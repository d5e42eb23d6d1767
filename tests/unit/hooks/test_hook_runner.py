"""One event's hooks run for real: stdin JSON, exit codes, JSON answers, limits, environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mini_letta import log
from mini_letta.conversations.messages import ToolCall
from mini_letta.hooks.config import load_hook_config
from mini_letta.hooks.process import OUTPUT_CAP, run_hook_command
from mini_letta.hooks.runner import HookRunner, HookSession
from mini_letta.settings import HookLayer
from mini_letta.tools.base import ToolResult
from support.hooks import hook_entry, hook_script, recorder, seen

SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 3


def _runner(tmp_path: Path, hooks: dict, environ: dict | None = None) -> HookRunner:
    config = load_hook_config([HookLayer("user", tmp_path / "settings.json", hooks)])
    session = HookSession("conv-1", tmp_path / "messages.jsonl", tmp_path, "default")
    env = {"PATH": os.environ["PATH"], **(environ or {})}
    return HookRunner(config, session, env)


def test_a_hook_gets_the_event_on_stdin_in_the_project_folder(tmp_path):
    record = tmp_path / "seen.jsonl"
    hook = recorder(tmp_path, "rec.sh", record, f'pwd >> "{tmp_path}/cwd.txt"')
    runner = _runner(tmp_path, {"PreToolUse": [hook_entry(hook, "Bash")]})
    call = ToolCall("call-1", "Bash", '{"command": "ls"}')
    decision = runner.before_tool(call, {"command": "ls"})
    assert decision.decision is None
    [event] = seen(record)
    assert event == {
        "session_id": "conv-1",
        "transcript_path": str(tmp_path / "messages.jsonl"),
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "call-1",
    }
    assert (tmp_path / "cwd.txt").read_text().strip() == str(tmp_path)


def test_a_hook_that_does_not_match_the_tool_never_runs(tmp_path):
    record = tmp_path / "seen.jsonl"
    runner = _runner(
        tmp_path, {"PreToolUse": [hook_entry(recorder(tmp_path, "r", record), "Edit|Write")]}
    )
    runner.before_tool(ToolCall("c", "Bash", "{}"), {})
    assert seen(record) == []


def test_exit_2_blocks_with_stderr_as_the_reason(tmp_path):
    hook = hook_script(tmp_path, "no.sh", 'echo "no rm -rf here" >&2\nexit 2')
    runner = _runner(tmp_path, {"PreToolUse": [hook_entry(hook)]})
    decision = runner.before_tool(ToolCall("c", "Bash", "{}"), {"command": "rm -rf /"})
    assert (decision.decision, decision.reason) == ("deny", "no rm -rf here")


@pytest.mark.parametrize(
    ("stdout", "decision", "reason"),
    [
        (
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",'
            ' "permissionDecisionReason": "not in CI"}}',
            "deny",
            "not in CI",
        ),
        ('{"hookSpecificOutput": {"permissionDecision": "allow"}}', "allow", ""),
        (
            '{"hookSpecificOutput": {"permissionDecision": "ask",'
            ' "permissionDecisionReason": "check it"}}',
            "ask",
            "check it",
        ),
        ('{"decision": "block", "reason": "old style"}', "deny", "old style"),
        ('{"decision": "approve"}', "allow", ""),
        ("plain words", None, ""),
        ("{not json", None, ""),
    ],
    ids=["deny", "allow", "ask", "block", "approve", "plain", "broken-json"],
)
def test_a_json_answer_decides_a_tool_call(tmp_path, stdout, decision, reason):
    hook = hook_script(tmp_path, "j.sh", f"cat > /dev/null\ncat <<'END'\n{stdout}\nEND")
    runner = _runner(tmp_path, {"PreToolUse": [hook_entry(hook)]})
    found = runner.before_tool(ToolCall("c", "Bash", "{}"), {})
    assert (found.decision, found.reason) == (decision, reason)


def test_deny_beats_ask_beats_allow_across_hooks(tmp_path):
    allow = hook_script(
        tmp_path, "a.sh", """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"""
    )
    ask = hook_script(
        tmp_path, "b.sh", """echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'"""
    )
    runner = _runner(tmp_path, {"PreToolUse": [hook_entry(allow), hook_entry(ask)]})
    assert runner.before_tool(ToolCall("c", "Bash", "{}"), {}).decision == "ask"


def test_other_exit_codes_warn_and_go_on(tmp_path):
    hook = hook_script(tmp_path, "crash.sh", 'echo "boom: no such thing" >&2\nexit 1')
    runner = _runner(tmp_path, {"UserPromptSubmit": [hook_entry(hook)]})
    import io

    stream = io.StringIO()
    with log.warnings_to(stream):
        reply = runner.prompt_submitted("hello")
    assert not reply.blocked and reply.context == ""
    assert "UserPromptSubmit hook" in stream.getvalue()
    assert "exited 1: boom: no such thing; going on" in stream.getvalue()


def test_a_hook_that_cannot_start_is_a_warning(tmp_path):
    runner = _runner(tmp_path, {"Stop": [hook_entry(tmp_path / "missing.sh")]})
    import io

    stream = io.StringIO()
    with log.warnings_to(stream):
        assert not runner.stopping(False, "end_turn").blocked
    assert "exited 127" in stream.getvalue()


def test_a_slow_hook_is_stopped_at_its_timeout(tmp_path):
    hook = hook_script(tmp_path, "slow.sh", "sleep 30")
    run = run_hook_command(str(hook), b"{}", tmp_path, {"PATH": os.environ["PATH"]}, 0.05)
    assert run.code is None and "timed out after 0.05s" in run.failure


def test_output_is_read_to_the_end_and_capped(tmp_path):
    command = "head -c 5000000 /dev/zero | tr '\\0' x; echo done >&2"
    run = run_hook_command(command, b"{}", tmp_path, {"PATH": os.environ["PATH"]}, 10)
    assert run.code == 0 and len(run.stdout) == OUTPUT_CAP and run.stderr.strip() == "done"


def test_a_hook_that_never_reads_a_large_payload_still_finishes(tmp_path):
    run = run_hook_command("exit 0", b"x" * 1_000_000, tmp_path, {"PATH": os.environ["PATH"]}, 10)
    assert run.code == 0


def test_hooks_run_without_the_provider_keys(tmp_path):
    hook = hook_script(tmp_path, "env.sh", 'env > "$CLAUDE_PROJECT_DIR/env.txt"')
    environ = {"OPENAI_API_KEY": SECRET, "ANTHROPIC_API_KEY": "x" * 20, "GREETING": "hi"}
    runner = _runner(tmp_path, {"SessionStart": [hook_entry(hook)]}, environ)
    runner.session_started("startup")
    env = (tmp_path / "env.txt").read_text()
    assert "GREETING=hi" in env and f"MINI_LETTA_PROJECT_DIR={tmp_path}" in env
    assert "API_KEY" not in env and SECRET not in env


def test_context_for_the_model_is_redacted_and_capped(tmp_path):
    hook = hook_script(
        tmp_path, "ctx.sh", f"echo 'key {SECRET}'; head -c 50000 /dev/zero | tr '\\0' y"
    )
    runner = _runner(tmp_path, {"UserPromptSubmit": [hook_entry(hook)]}, {"OPENAI_API_KEY": SECRET})
    reply = runner.prompt_submitted("hi")
    assert SECRET not in reply.context and len(reply.context) <= 10_000


def test_post_tool_use_gets_the_result_and_its_block_reaches_the_model(tmp_path):
    record = tmp_path / "post.jsonl"
    hook = recorder(tmp_path, "post.sh", record, 'echo "lint failed: fix a.py" >&2; exit 2')
    runner = _runner(tmp_path, {"PostToolUse": [hook_entry(hook, "Write")]})
    call = ToolCall("c", "Write", "{}")
    note = runner.after_tool(call, {"path": "a.py"}, ToolResult("wrote a.py"))
    assert note == "PostToolUse hook: lint failed: fix a.py"
    [event] = seen(record)
    assert event["tool_response"] == {"content": "wrote a.py", "is_error": False}
    assert event["tool_input"] == {"path": "a.py", "file_path": str(tmp_path / "a.py")}


def test_a_background_child_holding_the_pipes_is_stopped(tmp_path):
    run = run_hook_command(
        "sleep 30 & echo started", b"{}", tmp_path, {"PATH": os.environ["PATH"]}, 10
    )
    assert run.code == 0 and run.stdout.strip() == "started"


def test_undecodable_output_is_kept_as_replacement_characters(tmp_path):
    run = run_hook_command(
        "printf 'ok \\377\\376'", b"{}", tmp_path, {"PATH": os.environ["PATH"]}, 10
    )
    assert run.stdout == "ok \ufffd\ufffd"


def test_continue_false_blocks_with_its_stop_reason(tmp_path):
    hook = hook_script(
        tmp_path, "c.sh", """echo '{"continue": false, "stopReason": "CI is red"}'"""
    )
    runner = _runner(tmp_path, {"UserPromptSubmit": [hook_entry(hook)]})
    reply = runner.prompt_submitted("deploy")
    assert reply.blocked and reply.reason == "CI is red"


def test_a_system_message_is_shown_to_the_user_and_context_to_the_model(tmp_path):
    answer = (
        '{"systemMessage": "loaded 3 notes", '
        '"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "notes"}}'
    )
    hook = hook_script(tmp_path, "s.sh", f"echo '{answer}'")
    runner = _runner(tmp_path, {"SessionStart": [hook_entry(hook, "startup")]})
    import io

    stream = io.StringIO()
    with log.warnings_to(stream):
        reply = runner.session_started("startup")
        assert runner.session_started("resume").context == ""  # the matcher is the source
    assert reply.context == "notes" and not reply.blocked
    assert stream.getvalue() == "mini-letta: SessionStart hook: loaded 3 notes\n"


def test_contexts_of_several_hooks_add_up_in_order(tmp_path):
    one = hook_script(tmp_path, "1.sh", "echo first")
    two = hook_script(tmp_path, "2.sh", "echo second")
    runner = _runner(tmp_path, {"UserPromptSubmit": [hook_entry(one), hook_entry(two)]})
    assert runner.prompt_submitted("x").context == "first\nsecond"


def test_plain_output_of_a_tool_hook_stays_with_the_user(tmp_path):
    fmt = hook_script(tmp_path, "fmt.sh", "echo '1 file reformatted'")
    runner = _runner(tmp_path, {"PostToolUse": [hook_entry(fmt)]})
    call = ToolCall("c", "Write", "{}")
    assert runner.after_tool(call, {"path": "a.py"}, ToolResult("wrote a.py")) == ""
    context = '{"hookSpecificOutput": {"additionalContext": "a.py is generated: edit a.in"}}'
    note = hook_script(tmp_path, "note.sh", f"echo '{context}'")
    runner = _runner(tmp_path, {"PostToolUse": [hook_entry(note)]})
    assert runner.after_tool(call, {}, ToolResult("wrote a.py")) == (
        "PostToolUse hook context: a.py is generated: edit a.in"
    )


def test_deeply_nested_json_is_not_a_crash(tmp_path):
    """3.11's parser refuses this depth (the text is then plain words, added as context);
    3.13's parses it (an answer with no field we read, so nothing is added)."""
    nested = '{"a":' * 5000 + "1" + "}" * 5000
    hook = hook_script(tmp_path, "deep.sh", f"printf '%s' '{nested}'")
    runner = _runner(tmp_path, {"UserPromptSubmit": [hook_entry(hook)]})
    reply = runner.prompt_submitted("x")
    assert not reply.blocked
    assert reply.context == "" or reply.context.startswith('{"a":{"a":')
