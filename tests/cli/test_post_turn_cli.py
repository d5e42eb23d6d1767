"""Automatic reflection through the CLI: json and stream-json, background, queue, the REPL."""

from __future__ import annotations

import io
import json
import os
import re
import threading
from pathlib import Path

from mini_letta.clock import SystemClock
from mini_letta.home import Home
from mini_letta.reflection.state.lease import acquire_lease
from support.cli import cli_env
from support.waiting import wait_until

MERGED = re.compile(
    r"^  ☾ reflection (\d{14}-[0-9a-f]{8}): merged — Merged 1 reflection commit\(s\)\.$"
)
STARTED = re.compile(r"^  ☾ reflection started: Running in the background \(pid \d+\); ")
HOLDER = "20261008160000-00000001"


def _agent_dir(home: Home) -> Path:
    (agent,) = home.agents_dir.iterdir()
    return agent


def _outbox(home: Home) -> list[Path]:
    folder = _agent_dir(home) / "reflection-outbox"
    return sorted(folder.glob("*.json")) if folder.exists() else []


def _lines(stderr: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    return [m for m in map(pattern.match, stderr.splitlines()) if m]


def _records(cli) -> list[dict]:
    return json.loads(cli("reflections", "list", "--json").stdout)


def test_json_output_carries_the_outcome(cli, project_agent):
    cli("sleeptime", "--trigger", "step-count", "--steps", "2")  # saved in agent.json
    quiet = json.loads(cli("chat", "-p", "我更喜欢用 tabs 缩进", "--output-format", "json").stdout)
    assert quiet["reflection"] is None
    result = cli("chat", "-p", "好的", "--output-format", "json")
    data = json.loads(result.stdout)  # one object: the line went to stderr
    reflection = data["reflection"]
    assert (reflection["status"], reflection["trigger"], reflection["launched"]) == (
        "merged",
        "step-count",
        True,
    )
    assert reflection["conversationId"] == data["conversationId"]
    assert [m.group(1) for m in _lines(result.stderr, MERGED)] == [reflection["runId"]]


def test_stream_json_has_a_reflection_event_and_the_result_last(cli, project_agent):
    cli("sleeptime", "--trigger", "step-count", "--steps", "1")
    result = cli("chat", "-p", "我更喜欢用 tabs 缩进", "--output-format", "stream-json")
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "system" and kinds[-2:] == ["reflection", "result"]
    reflection, final = events[-2], events[-1]
    assert reflection["status"] == "merged" and reflection["trigger"] == "step-count"
    assert final["reflection"]["runId"] == reflection["runId"]
    assert result.stderr == ""


def test_stream_json_input_reflects_between_messages(cli, project_agent):
    cli("sleeptime", "--trigger", "step-count", "--steps", "2")
    lines = [json.dumps(t) for t in ("我更喜欢用 tabs 缩进", "好的", "嗯")]
    result = cli("chat", "--input-format", "stream-json", stdin="\n".join(lines) + "\n")
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    shape = [e["type"] for e in events if e["type"] in ("reflection", "result")]
    assert shape == ["result", "reflection", "result", "result"]
    results = [e for e in events if e["type"] == "result"]
    assert [r["reflection"] and r["reflection"]["status"] for r in results] == [
        None,
        "merged",
        None,
    ]


def test_a_detached_reflection_by_the_flag_or_the_setting_is_shown_once(cli, home, project_agent):
    cli("sleeptime", "--trigger", "step-count", "--steps", "1")
    result = cli("chat", "-p", "我更喜欢用 tabs 缩进", "--background-reflection")
    assert result.code == 0 and result.stdout == "（mock）我听到了：我更喜欢用 tabs 缩进\n"
    assert STARTED.match(result.stderr) and not _lines(result.stderr, MERGED), result.stderr
    wait_until(lambda: _outbox(home), "the detached reflection")
    shown = cli("reflections", "list")
    (line,) = _lines(shown.stderr, MERGED)
    assert line.group(1) in shown.stdout
    assert not _lines(cli("reflections", "list").stderr, MERGED)  # once
    human = cli("memory", "show", "system/human.md").stdout
    assert "- Preference: 我更喜欢用 tabs 缩进" in human
    assert not (_agent_dir(home) / "reflection.lease").exists()

    # the setting detaches like the flag; the next turn's stream-json shows the outcome first
    settings = json.loads(home.settings_file.read_text()) if home.settings_file.exists() else {}
    home.settings_file.write_text(
        json.dumps({"schemaVersion": 1, **settings, "reflectionMode": "background"})
    )
    result = cli("chat", "-p", "今天我们决定以后一律用 pnpm", "--output-format", "json")
    reflection = json.loads(result.stdout)["reflection"]
    assert reflection["background"] is True and reflection["pid"] > 0
    wait_until(lambda: _outbox(home), "the detached reflection")
    cli("sleeptime", "--trigger", "off")  # the next turn starts no reflection of its own
    shown = cli("chat", "-p", "嗯", "--output-format", "stream-json")
    events = [json.loads(line) for line in shown.stdout.splitlines()]
    assert [e["type"] for e in events[:2]] == ["system", "reflection"]
    assert events[1]["status"] == "merged"


def test_a_bad_reflection_mode_is_a_clear_error(cli, home):
    home.settings_file.parent.mkdir(parents=True, exist_ok=True)
    home.settings_file.write_text('{"schemaVersion": 1, "reflectionMode": "later"}')
    result = cli("chat", "-p", "你好")
    assert result.code == 1
    assert (
        "reflectionMode 'later' is not allowed (allowed: foreground, background)" in result.stderr
    )
    assert str(home.settings_file) in result.stderr


def test_a_launch_queued_behind_a_run_is_run_by_the_next_holder(cli, home, project_agent):
    """Two background launches: the first waits behind a running reflection (here the test
    holds the lease), the second runs and then runs the queued one; both outcomes shown once."""
    cli("sleeptime", "--trigger", "step-count", "--steps", "1")
    first = cli("chat", "-p", "我更喜欢用 tabs 缩进")  # a first merge, in this process
    assert _lines(first.stderr, MERGED), first.stderr
    agent_dir = _agent_dir(home)
    conv_a = json.loads(cli("conversations", "list", "--json").stdout)[0]["id"]
    queue = Home(home.root).reflection_queue_file(agent_dir.name)
    lease = acquire_lease(Home(home.root), agent_dir.name, HOLDER, SystemClock())
    try:
        queued = cli("chat", "-p", "今天我们决定以后一律用 pnpm", "--background-reflection")
        assert queued.code == 0
        wait_until(lambda: queue.exists(), "the queued launch")
        assert json.loads(queue.read_text())["conversationId"] == conv_a
        # The queuer looks at the lease once more after queueing (and would run the launch
        # itself if the lease were free): let it finish while the lease is still held.
        wait_until(lambda: not _workers_of(conv_a), "the queueing worker to exit")
    finally:
        lease.release()
    second = cli("chat", "--new", "-p", "我叫李雷", "--background-reflection")
    assert second.code == 0
    wait_until(lambda: len(_outbox(home)) == 2, "both reflections")
    shown = cli("reflections", "list")
    lines = _lines(shown.stderr, re.compile(r"^  ☾ reflection (\S+): merged — "))
    records = {r["runId"]: r for r in _records(cli)}
    ran = [records[m.group(1)] for m in lines]
    assert [r["conversationId"] != conv_a for r in ran] == [True, False]  # the runner, then queued
    assert not queue.exists()
    assert not _lines(cli("reflections", "list").stderr, MERGED)
    human = cli("memory", "show", "system/human.md").stdout
    assert "pnpm" in human and "李雷" in human


def _workers_of(conversation_id: str) -> list[str]:
    """Pids of running reflection workers for a conversation (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"_reflect-worker" in command and conversation_id.encode() in command:
            found.append(entry.name)
    return found


def test_the_interactive_session_shows_a_finished_reflection_before_the_next_line(
    cli, home, project, project_agent
):
    """The session reads a pipe line by line: the second line is written only once the
    detached reflection of the first turn has finished, and its outcome is shown first."""
    from mini_letta.cli.main import main
    from mini_letta.cli.terminal import Terminal

    cli("sleeptime", "--trigger", "step-count", "--steps", "1")
    read_end, write_end = os.pipe()
    out, err = io.StringIO(), io.StringIO()

    def type_lines() -> None:
        with open(write_end, "w", encoding="utf-8") as keyboard:
            keyboard.write("我更喜欢用 tabs 缩进\n")
            keyboard.flush()
            wait_until(lambda: home.agents_dir.exists() and _outbox(home), "the reflection")
            keyboard.write("/bogus\n")

    typist = threading.Thread(target=type_lines, daemon=True)
    typist.start()
    with open(read_end, encoding="utf-8") as keys:
        code = main([], Terminal(keys, out, err, cli_env(home.root), project))
    typist.join(30)
    assert code == 0 and "Traceback" not in err.getvalue(), err.getvalue()
    assert "（mock）我听到了：我更喜欢用 tabs 缩进" in out.getvalue()
    lines = err.getvalue().splitlines()
    merged = next(i for i, line in enumerate(lines) if MERGED.match(line))
    unknown = next(i for i, line in enumerate(lines) if line.startswith("Unknown command /bogus"))
    assert merged < unknown, err.getvalue()


def test_reflect_and_sleeptime_in_the_interactive_session(cli, project_agent):
    cli("sleeptime", "--trigger", "off")
    script = "我更喜欢用 tabs 缩进\n/sleeptime\n/sleeptime --steps 0\n/reflect 只记偏好\n"
    result = cli(stdin=script)
    assert result.code == 0, result.stderr
    assert '{"trigger":"off","stepCount":25}' in result.stdout
    assert "invalid --steps '0' (allowed: an integer > 0)" in result.stderr
    assert "☾ reflecting in the background" in result.stderr
    (merged,) = _lines(result.stderr, MERGED)  # leaving waited for it
    (record,) = _records(cli)
    assert (record["runId"], record["trigger"], record["instruction"]) == (
        merged.group(1),
        "manual",
        "只记偏好",
    )
    help_text = cli(stdin="/help\n").stdout
    for command in ("/reflect", "/dream", "/sleeptime", "/compact"):
        assert command in help_text


def test_dream_in_the_interactive_session_with_nothing_new(cli):
    result = cli(stdin="/dream\n")
    assert result.code == 0
    assert "  ☾ reflection skipped: no_payload — No new messages to reflect on." in result.stderr
