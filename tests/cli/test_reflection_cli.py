"""The reflection commands as a user runs them: sleeptime, reflect/dream, reflections."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

LINE = re.compile(r"^  ☾ reflection (\d{14}-[0-9a-f]{8}): (\w+) — (.+)$")
SKIPPED = "  ☾ reflection skipped: no_payload — No new messages to reflect on.\n"
WALK_THROUGH_LINE = re.compile(
    r"^  ☾ reflection \d{14}-[0-9a-f]{8}: merged — Merged 1 reflection commit\(s\)\.\n\Z"
)


def _agent_id(cli) -> str:
    return json.loads(cli("agents", "show", "--json").stdout)["id"]


def _reflect(cli, *args):
    result = cli("reflect", *args)
    match = LINE.match(result.stderr.rstrip().splitlines()[-1])
    return result, match


def test_the_chapters_walk_through(cli, project_agent):
    """The chapter's order: sleeptime first in a fresh project, then three turns; with
    step-count 3 the third turn's reflection merges both lasting lines."""
    set_up = cli("sleeptime", "--trigger", "step-count", "--steps", "3")
    assert (set_up.code, set_up.stdout, set_up.stderr) == (
        0,
        '{"trigger":"step-count","stepCount":3}\n',
        "",
    )
    for text in ("帮我看下这个报错", "我更喜欢用 tabs 缩进"):
        turn = cli("chat", "-p", text)
        assert (turn.code, turn.stdout, turn.stderr) == (0, f"（mock）我听到了：{text}\n", "")
    third = cli("chat", "-p", "今天我们决定以后一律用 pnpm")
    assert (third.code, third.stdout) == (0, "（mock）我听到了：今天我们决定以后一律用 pnpm\n")
    assert WALK_THROUGH_LINE.match(third.stderr), third.stderr
    human = cli("memory", "show", "system/human.md")
    assert human.code == 0
    assert "- Preference: 我更喜欢用 tabs 缩进" in human.stdout
    assert re.search(r"- Decision \(\d{4}-\d{2}-\d{2}\): 我们决定以后一律用 pnpm", human.stdout)
    assert "报错" not in human.stdout
    again = cli("reflect")
    assert (again.code, again.stderr) == (0, SKIPPED)
    (record,) = json.loads(cli("reflections", "list", "--json").stdout)
    assert (record["trigger"], record["status"]) == ("step-count", "merged")


def test_sleeptime_shows_without_an_agent_and_a_change_makes_the_projects_agent(cli, home):
    result = cli("sleeptime")
    assert (result.code, result.stdout) == (0, '{"trigger":"compaction-event","stepCount":25}\n')
    assert not (home.root / "agents").exists()
    configured = cli("sleeptime", "--steps", "3")  # this project's agent: made, as a chat would
    assert (configured.code, configured.stdout) == (
        0,
        '{"trigger":"compaction-event","stepCount":3}\n',
    )
    agent = json.loads((home.root / "agents" / _agent_id(cli) / "agent.json").read_text())
    assert agent["reflection"] == {"stepCount": 3}


def test_sleeptime_merge_settings_are_shown_when_not_default(cli, project_agent, home):
    result = cli("sleeptime", "--merge", "explicit", "--merge-instructions", " 只合并偏好 ")
    assert result.stdout == (
        '{"trigger":"compaction-event","stepCount":25,"merge":"explicit",'
        '"mergeInstructions":"只合并偏好"}\n'
    )
    agent = json.loads((home.root / "agents" / _agent_id(cli) / "agent.json").read_text())
    assert agent["reflection"] == {"merge": "explicit", "mergeInstructions": "只合并偏好"}


def test_sleeptime_global_and_local(cli, project_agent, home, project):
    globally = cli("sleeptime", "--steps", "40", "--global")  # needs no agent
    assert globally.stdout == '{"trigger":"compaction-event","stepCount":40}\n'
    cli("sleeptime", "--trigger", "off", "--local")
    shown = cli("sleeptime")
    assert shown.stdout == '{"trigger":"off","stepCount":40}\n'
    assert json.loads((home.root / "settings.json").read_text())["reflection"] == {"stepCount": 40}
    local = json.loads((project / ".mini-letta" / "settings.local.json").read_text())
    assert local["agents"][_agent_id(cli)]["reflection"] == {"trigger": "off"}


BAD_FLAGS = [
    pytest.param(["--trigger", "sometimes"], "off, step-count, compaction-event", id="trigger"),
    pytest.param(["--steps", "0"], "an integer > 0", id="zero-steps"),
    pytest.param(["--steps", "many"], "an integer > 0", id="word-steps"),
    pytest.param(["--merge", "yolo"], "auto, explicit", id="merge"),
    pytest.param(["--global", "--local", "--steps", "3"], "--global or --local", id="both-scopes"),
]


@pytest.mark.parametrize(("flags", "allowed"), BAD_FLAGS)
def test_sleeptime_bad_values_exit_2_and_create_nothing(cli, home, flags, allowed):
    result = cli("sleeptime", *flags)
    assert result.code == 2
    assert allowed in result.stderr and result.stdout == ""
    assert not (home.root / "agents").exists()


def test_reflect_before_any_chat_has_nothing_to_do(cli):
    result = cli("reflect")
    assert (result.code, result.stdout) == (1, "")
    assert "no agent yet" in result.stderr
    cli("agents", "create")
    result = cli("reflect")
    assert (result.code, result.stderr, result.stdout) == (0, SKIPPED, "")


def test_dream_is_an_alias(cli, project_agent):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    result = cli("dream")
    match = LINE.match(result.stderr.rstrip())
    assert result.code == 0 and match and match.group(2) == "merged"


def test_dry_run_prints_the_slice_and_the_payload_and_runs_nothing(cli, project_agent, home):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    result = cli("reflect", "--dry-run")
    assert result.code == 0 and result.stderr == ""
    slice_line, payload_line, plan_line = result.stdout.splitlines()
    assert "2 message(s) to reflect on in 1 slice(s)" in plan_line
    assert "no price is known for mock" in plan_line
    assert (
        slice_line.startswith("conversation conv-")
        and "lines 0-1, 2 message(s), 1 step(s)" in slice_line
    )
    path = payload_line.removeprefix("payload: ")
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert [m["content"] for m in data["messages"]][0] == "我更喜欢用 tabs 缩进"
    reflections = home.root / "agents" / _agent_id(cli) / "reflections"
    assert not reflections.exists()
    assert LINE.match(cli("reflect").stderr.rstrip()).group(2) == "merged"


def test_dirty_memory_is_skipped_with_exit_1(cli, project_agent, home):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    memory = home.root / "agents" / _agent_id(cli) / "memory"
    (memory / "draft.md").write_text("mine")
    result = cli("reflect")
    assert result.code == 1
    assert result.stderr.startswith("  ☾ reflection skipped: parent_dirty — Memory has uncommitted")
    assert "draft.md" in result.stderr


def test_an_unusable_model_is_a_clear_error(cli, project_agent, home):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    agent_file = home.root / "agents" / _agent_id(cli) / "agent.json"
    data = json.loads(agent_file.read_text())
    data["model"] = "openai/gpt-test"
    agent_file.write_text(json.dumps(data))
    result = cli("reflect")
    assert result.code == 1 and result.stderr.startswith("mini-letta: ")
    assert "OPENAI_API_KEY" in result.stderr or "not available" in result.stderr
    assert not (home.root / "agents" / _agent_id(cli) / "reflection.lease").exists()


def test_unknown_conversation_is_a_clear_error(cli, project_agent):
    result = cli("reflect", "--conversation", "conv-nope")
    assert result.code == 1 and "conv-nope" in result.stderr and "not found" in result.stderr


def test_corrupt_state_and_lease_files_from_a_crash_are_recovered(cli, reflected, home):
    cli("chat", "-p", "我叫李雷")  # after a turn and a merged run
    agent = home.root / "agents" / _agent_id(cli)
    (state,) = agent.glob("conversations/*/reflection-state.json")
    state.write_text('{"schemaVersion": 1, "reflectedThroughLine": "x"')
    (agent / "reflection.lease").write_text("{torn")
    result, match = _reflect(cli)
    assert result.code == 0 and match.group(2) == "merged", result.stderr
    assert "reflection-state.json was corrupt" in result.stderr
    assert "reflection.lease was unreadable" in result.stderr
    assert list(state.parent.glob("reflection-state.json.corrupt-*"))
    human = cli("memory", "show", "system/human.md").stdout
    assert human.count("tabs") == 1 and "我叫李雷" in human  # not a replay from the start


def test_reflections_list_and_show(cli, project_agent):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    _, match = _reflect(cli, "-i", "be brief")
    run_id = match.group(1)
    listed = cli("reflections", "list")
    assert listed.code == 0 and listed.stdout.startswith(f"{run_id}  merged ")
    shown = cli("reflections", "show", run_id)
    assert shown.code == 0
    assert "status:       merged — Merged 1 reflection commit(s)." in shown.stdout
    assert "+- Preference: 我更喜欢用 tabs 缩进" in shown.stdout
    assert re.search(r"budget: +window 8192, up to \d+ tokens of transcript a run", shown.stdout)
    assert re.search(r"lines 0-1 \(2 message\(s\), about \d+ tokens\)", shown.stdout)
    record = json.loads(cli("reflections", "show", run_id, "--json").stdout)
    assert record["instruction"] == "be brief" and record["trigger"] == "manual"
    cli("chat", "-p", "嗯")
    cli("reflect")  # a later run removes the earlier payload
    assert "(removed by a later run)" in cli("reflections", "show", run_id).stdout


@pytest.mark.parametrize("run_id", ["nope", "20261008160658-00000000"])
def test_reflections_show_unknown_run(cli, project_agent, run_id):
    result = cli("reflections", "show", run_id)
    assert result.code == 1 and "reflections list" in result.stderr


def test_reflect_recent_runs_over_several_conversations(cli, project_agent):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    cli("chat", "-p", "我叫李雷", "--new")
    result, match = _reflect(cli, "--recent", "2")
    assert result.code == 0 and match.group(2) == "merged", result.stderr
    record = json.loads(cli("reflections", "show", match.group(1), "--json").stdout)
    assert len(record["slices"]) == 2
    human = cli("memory", "show", "system/human.md").stdout
    assert "tabs" in human and "我叫李雷" in human


def test_reflect_flags_that_do_not_combine_are_usage_errors(cli, project_agent):
    assert cli("reflect", "--recent", "2", "--conversation", "conv-x").code == 2
    assert cli("reflect", "--recent", "2", "--dry-run").code == 2
    assert cli("reflect", "--recent", "0").code == 2


def test_reflections_undo(cli, reflected):
    run_id = reflected.run_id  # the merged run of the turn "我更喜欢用 tabs 缩进"
    assert "tabs" in cli("memory", "show", "system/human.md").stdout
    undone = cli("reflections", "undo", run_id)
    assert undone.code == 0 and undone.stdout.startswith(f"Undid reflection run {run_id}")
    assert "tabs" not in cli("memory", "show", "system/human.md").stdout
    twice = cli("reflections", "undo", run_id)
    assert twice.code == 1 and "is undone, not merged" in twice.stderr
    _, again = _reflect(cli)
    assert again.group(2) == "merged"


def test_memory_undo_of_a_run_id_rewinds_the_watermark(cli, reflected):
    undone = cli("memory", "undo", reflected.run_id)
    assert undone.code == 0 and undone.stdout.startswith(
        f"reverted reflection run {reflected.run_id}"
    )
    assert "tabs" not in cli("memory", "show", "system/human.md").stdout
    _, again = _reflect(cli)  # the slice is offered again
    assert again.group(2) == "merged"
    assert "tabs" in cli("memory", "show", "system/human.md").stdout


def test_a_log_cut_before_the_watermark_replays_from_the_start_and_says_so(
    cli, project_agent, home
):
    for text in ("one", "two", "three"):
        cli("chat", "-p", text)
    assert LINE.match(cli("reflect").stderr.rstrip()).group(2) == "no_changes"
    (log,) = (home.root / "agents" / _agent_id(cli)).glob("conversations/*/messages.jsonl")
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:2]))
    cli("chat", "-p", "four")  # the index still describes the longer log
    result, match = _reflect(cli)
    assert result.code == 0, result.stderr
    warning = "mini-letta: warning: conversation conv-"
    (line,) = [line for line in result.stderr.splitlines() if line.startswith(warning)]
    assert "replayed from the start" in line and "watermark" in line
    record = json.loads(cli("reflections", "show", match.group(1), "--json").stdout)
    (piece,) = record["slices"]
    assert (piece["watermarkLost"], piece["startLine"], piece["endSnapshotLine"]) == (True, 0, 4)
