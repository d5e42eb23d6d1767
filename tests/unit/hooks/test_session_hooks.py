"""Every hook event wired where it happens, through the front door `Session`, with real
shell scripts and the scripted model (tools run for real in the project folder)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mini_letta import log
from mini_letta.home import project_settings_file
from mini_letta.loop.events import MessageEvent, ToolResultEvent, TurnResult
from mini_letta.loop.pressure import compact_now
from mini_letta.loop.setup import TurnOptions
from mini_letta.reflection.state.outcome import ReflectionOutcome
from mini_letta.reflection.state.settings import save_reflection_settings
from mini_letta.session import MAX_STOP_CONTINUATIONS, AfterTurn, Session
from mini_letta.workspace import World, new_agent
from support.hooks import hook_entry, hook_script, recorder, seen, write_hooks


@pytest.fixture
def world(home, project, clock) -> World:
    return World(home=home, cwd=project, environ={"PATH": os.environ["PATH"]}, clock=clock)


@pytest.fixture
def hooks_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "hooks"
    folder.mkdir()
    return folder


def _script(tmp_path: Path, *responses: Any) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(list(responses)), encoding="utf-8")
    return f"script:{path}"


def _bash(command: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "Bash", "arguments": {"command": command}, "id": "call-1"}]}


def _session(world: World, model: str, **options: Any) -> Session:
    return Session(world, options=TurnOptions(model=model, **options))


def _tool_results(events: list[Any]) -> list[str]:
    return [e.result.content for e in events if isinstance(e, ToolResultEvent)]


def _user_messages(session: Session) -> list[str]:
    return [m.content for m in session.store.all() if m.role == "user"]


def test_a_pre_tool_use_hook_blocks_a_bash_command(world, project, tmp_path, hooks_dir):
    record = hooks_dir / "pre.jsonl"
    guard = recorder(
        hooks_dir,
        "guard.sh",
        record,
        'echo "rm -rf is not allowed here" >&2; exit 2',
    )
    write_hooks(world.home.settings_file, {"PreToolUse": [hook_entry(guard, "Bash")]})
    model = _script(tmp_path, _bash(f"touch {project}/ran.txt; rm -rf build"), "I will not.")
    with _session(world, model, permission_mode="bypassPermissions") as session:
        events = list(session.turn("clean up"))
    [result] = _tool_results(events)
    assert result == "PermissionDenied: a PreToolUse hook blocked Bash: rm -rf is not allowed here"
    assert not (project / "ran.txt").exists()  # the command never ran
    assert events[-1].result.text == "I will not."
    [event] = seen(record)
    assert event["tool_name"] == "Bash" and "rm -rf build" in event["tool_input"]["command"]
    assert event["session_id"] == session.store.conversation_id
    assert event["transcript_path"] == str(session.store.files.messages)


def test_a_pre_tool_use_allow_skips_asking_but_not_plan_mode(world, project, tmp_path, hooks_dir):
    allow = hook_script(
        hooks_dir, "allow.sh", """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"""
    )
    write_hooks(world.home.settings_file, {"PreToolUse": [hook_entry(allow)]})
    model = _script(tmp_path, _bash("touch ran.txt"), "done", _bash("touch plan.txt"), "done")
    with _session(world, model) as session:  # default mode, headless: Bash would be refused
        assert _tool_results(list(session.turn("go"))) == ["(no output)"]
    assert (project / "ran.txt").exists()
    with _session(world, model, permission_mode="plan") as session:
        [refused] = _tool_results(list(session.turn("go")))
    assert refused.startswith("PermissionDenied: Bash is not allowed in plan mode")


def test_a_post_tool_use_hook_speaks_to_the_model(world, project, tmp_path, hooks_dir):
    record = hooks_dir / "post.jsonl"
    lint = recorder(hooks_dir, "lint.sh", record, 'echo "style: use tabs" >&2; exit 2')
    write_hooks(world.home.settings_file, {"PostToolUse": [hook_entry(lint, "Bash")]})
    model = _script(tmp_path, _bash("echo hi"), "ok")
    with _session(world, model, permission_mode="bypassPermissions") as session:
        events = list(session.turn("say hi"))
    assert _tool_results(events) == ["hi\n\nPostToolUse hook: style: use tabs"]
    stored = [m.content for m in session.store.all() if m.role == "tool"]
    assert stored == ["hi\n\nPostToolUse hook: style: use tabs"]
    assert seen(record)[0]["tool_response"] == {"content": "hi", "is_error": False}


def test_user_prompt_submit_adds_context_to_the_prompt(world, hooks_dir):
    record = hooks_dir / "prompt.jsonl"
    hook = recorder(hooks_dir, "ctx.sh", record, "echo 'branch: main, 2 files changed'")
    write_hooks(world.home.settings_file, {"UserPromptSubmit": [hook_entry(hook)]})
    with Session(world) as session:
        session.run("what changed?")
    assert _user_messages(session) == [
        "what changed?\n\n<hook-context>\nbranch: main, 2 files changed\n</hook-context>"
    ]
    assert seen(record)[0]["prompt"] == "what changed?"
    assert session.store.load_record().title == "what changed?"


def test_user_prompt_submit_exit_2_keeps_the_prompt_back(world, hooks_dir):
    hook = hook_script(hooks_dir, "no.sh", 'echo "no secrets in prompts" >&2; exit 2')
    write_hooks(project_settings_file(world.cwd), {"UserPromptSubmit": [hook_entry(hook)]})
    with Session(world) as session:
        events = list(session.turn("my password is hunter2"))
    assert [type(e) for e in events] == [TurnResult, AfterTurn]
    result = events[0]
    assert result.stop_reason == "error" and result.steps == 0
    assert result.error == "a UserPromptSubmit hook blocked the prompt: no secrets in prompts"
    assert session.store.count() == 0  # nothing was said or kept
    assert events[1].reflection is None


def test_session_start_context_rides_with_the_first_prompt(world, hooks_dir):
    record = hooks_dir / "start.jsonl"
    hook = recorder(hooks_dir, "start.sh", record, "echo 'open issues: 3'")
    write_hooks(world.home.settings_file, {"SessionStart": [hook_entry(hook)]})
    with Session(world) as session:
        session.run("hello")
        session.run("again")
    with Session(world) as resumed:
        resumed.run("back")
    assert _user_messages(resumed) == [
        "hello\n\n<hook-context>\nopen issues: 3\n</hook-context>",
        "again",
        "back\n\n<hook-context>\nopen issues: 3\n</hook-context>",
    ]
    assert [e["source"] for e in seen(record)] == ["startup", "resume"]


def test_a_stop_hook_that_blocks_has_the_model_go_on(world, tmp_path, hooks_dir):
    record = hooks_dir / "stop.jsonl"
    body = (
        'grep -q \'"stop_hook_active": true\' "$REC" && exit 0\n'
        'echo "run the tests before you stop" >&2; exit 2'
    )
    hook = hook_script(hooks_dir, "stop.sh", f'REC="{record}"\ncat > "$REC"\n{body}')
    write_hooks(world.home.settings_file, {"Stop": [hook_entry(hook)]})
    model = _script(tmp_path, "Done.", "Tests pass. Done now.")
    with _session(world, model) as session:
        events = list(session.turn("fix it"))
    results = [e for e in events if isinstance(e, TurnResult)]
    assert len(results) == 1  # one turn, one result
    assert results[0].text == "Tests pass. Done now." and results[0].steps == 2
    assert _user_messages(session)[1] == (
        '<hook-feedback event="Stop">\nrun the tests before you stop\n</hook-feedback>'
    )


def test_a_stop_hook_that_always_blocks_cannot_hold_the_turn(world, tmp_path, hooks_dir):
    hook = hook_script(hooks_dir, "stop.sh", 'echo "never done" >&2; exit 2')
    write_hooks(world.home.settings_file, {"Stop": [hook_entry(hook)]})
    model = _script(tmp_path, *["again"] * (MAX_STOP_CONTINUATIONS + 1))
    with _session(world, model) as session:
        result = session.run("go")
    assert result.steps == MAX_STOP_CONTINUATIONS + 1 and result.stop_reason == "end_turn"


def test_pre_compact_runs_before_a_compaction(world, hooks_dir):
    record = hooks_dir / "compact.jsonl"
    hook = recorder(hooks_dir, "compact.sh", record)
    write_hooks(world.home.settings_file, {"PreCompact": [hook_entry(hook, "manual")]})
    with Session(world) as session:
        for n in range(4):
            session.run(f"message number {n} " + "words " * 40)
        compact_now(session.setup, "keep the numbers")
    [event] = seen(record)
    assert event["trigger"] == "manual" and event["custom_instructions"] == "keep the numbers"
    assert event["hook_event_name"] == "PreCompact"


def test_pre_compact_runs_when_a_turn_compacts(world, hooks_dir):
    record = hooks_dir / "compact.jsonl"
    write_hooks(
        world.home.settings_file, {"PreCompact": [hook_entry(recorder(hooks_dir, "c", record))]}
    )
    with Session(world, options=TurnOptions(context_window=1200)) as session:
        for n in range(8):  # until the first turn that compacts (the second, today)
            session.run(f"message number {n} " + "words " * 60)
            if seen(record):
                break
    assert seen(record) and {e["trigger"] for e in seen(record)} == {"auto"}


def test_post_reflect_gets_the_runs_outcome(world, hooks_dir):
    agent = new_agent(world, name="librarian")
    save_reflection_settings(
        world.home, world.cwd, agent, {"trigger": "step-count", "stepCount": 1}, "agent"
    )
    before, after = hooks_dir / "pre.jsonl", hooks_dir / "post.jsonl"
    write_hooks(
        world.home.settings_file,
        {
            "PreReflect": [hook_entry(recorder(hooks_dir, "pre.sh", before))],
            "PostReflect": [hook_entry(recorder(hooks_dir, "post.sh", after))],
        },
    )
    with Session(world, agent="librarian") as session:
        last = list(session.turn("I prefer tabs for indentation"))[-1]
    assert isinstance(last.reflection, ReflectionOutcome) and last.reflection.status == "merged"
    assert [e["trigger"] for e in seen(before)] == ["step-count"]
    [post] = seen(after)
    assert post["outcome"]["status"] == "merged"
    assert post["outcome"]["runId"] == last.reflection.run_id


def test_pre_reflect_exit_2_holds_the_reflection_back(world, hooks_dir):
    agent = new_agent(world, name="librarian")
    save_reflection_settings(
        world.home, world.cwd, agent, {"trigger": "step-count", "stepCount": 1}, "agent"
    )
    hook = hook_script(hooks_dir, "pre.sh", 'echo "not during the demo" >&2; exit 2')
    write_hooks(world.home.settings_file, {"PreReflect": [hook_entry(hook)]})
    with Session(world, agent="librarian") as session:
        last = list(session.turn("I prefer tabs for indentation"))[-1]
    assert isinstance(last.reflection, ReflectionOutcome) and not last.reflection.launched
    assert "not during the demo" in last.reflection.message
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text()
    assert "tabs" not in human


def test_crashing_hooks_never_lose_a_turn(world, tmp_path, hooks_dir):
    crash = hook_script(hooks_dir, "crash.sh", "exit 7")
    events = {e: [hook_entry(crash)] for e in ("UserPromptSubmit", "SessionStart", "Stop")}
    write_hooks(world.home.settings_file, {**events, "PreToolUse": [hook_entry(crash)]})
    model = _script(tmp_path, _bash("echo fine"), "all good")
    stream = io.StringIO()
    with (
        log.warnings_to(stream),
        _session(world, model, permission_mode="bypassPermissions") as session,
    ):
        result = session.run("go")
    assert result.text == "all good" and result.stop_reason == "end_turn"
    assert [m.content for m in session.store.all() if m.role == "tool"] == ["fine"]
    assert stream.getvalue().count("exited 7") == 4


def test_a_session_without_hooks_runs_none(world):
    with Session(world) as session:
        assert session.hooks is None and session.setup.tool_context.hooks is None
        assert isinstance(list(session.turn("hi"))[0], MessageEvent)


def test_a_pre_tool_use_ask_asks_even_where_the_mode_allows(world, project, tmp_path, hooks_dir):
    answer = (
        '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "prod"}}'
    )
    ask = hook_script(hooks_dir, "ask.sh", f"echo '{answer}'")
    write_hooks(world.home.settings_file, {"PreToolUse": [hook_entry(ask, "Bash")]})
    asked: list[str] = []

    def approve(call, description: str) -> bool:
        asked.append(description)
        return False

    model = _script(tmp_path, _bash("touch ran.txt"), "ok")
    options = {"permission_mode": "bypassPermissions", "approve": approve}
    with _session(world, model, **options) as session:
        [result] = _tool_results(list(session.turn("go")))
    assert asked == ["Bash: touch ran.txt (a hook asks: prod)"]
    assert result == "PermissionDenied: the user declined to run Bash"
    assert not (project / "ran.txt").exists()


def test_a_stop_hook_never_takes_a_turn_past_max_steps(world, tmp_path, hooks_dir):
    record = hooks_dir / "stop.jsonl"
    hook = recorder(hooks_dir, "stop.sh", record, 'echo "keep going" >&2; exit 2')
    write_hooks(world.home.settings_file, {"Stop": [hook_entry(hook)]})
    model = _script(tmp_path, _bash("echo one"), "unused")
    with _session(world, model, max_steps=1, permission_mode="bypassPermissions") as session:
        result = session.run("go")
    assert (result.stop_reason, result.steps) == ("max_steps", 1)
    assert [e["stop_reason"] for e in seen(record)] == ["max_steps"]


def test_a_claude_code_formatter_hook_finds_the_file_it_expects(
    world, project, tmp_path, hooks_dir
):
    # The Claude Code docs' own example reads .tool_input.file_path (absolute).
    fmt = hook_script(hooks_dir, "fmt.sh", 'jq -r .tool_input.file_path | xargs sed -i "s/  / /g"')
    write_hooks(world.home.settings_file, {"PostToolUse": [hook_entry(fmt, "Write|Edit")]})
    write = {"name": "Write", "arguments": {"path": "notes.md", "content": "a  b\n"}, "id": "w"}
    model = _script(tmp_path, {"toolCalls": [write]}, "written")
    with _session(world, model, permission_mode="acceptEdits") as session:
        session.run("write the notes")
    assert (project / "notes.md").read_text() == "a b\n"


def test_an_interrupt_thrown_into_a_hooked_turn_is_recorded_by_the_turn(world, hooks_dir, tmp_path):
    """With hooks the turn runs inside the Stop-hook rounds; a cancel still reaches it."""
    record = tmp_path / "stops.jsonl"
    stop = recorder(hooks_dir, "stop.sh", record)
    write_hooks(project_settings_file(world.project_dir), {"Stop": [hook_entry(stop)]})
    with _session(world, _script(tmp_path, "never finished")) as session:
        assert session.hooks is not None
        events = session.turn("keep me")
        first = next(events)
        assert isinstance(first, MessageEvent) and first.message.role == "user"
        with pytest.raises(KeyboardInterrupt):
            events.throw(KeyboardInterrupt())
        last = session.store.load_record().last_turn
    assert last is not None and last["stopReason"] == "interrupted"
    assert seen(record) == []  # no Stop hook for a turn that was stopped
