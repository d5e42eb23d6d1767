"""PreReflect and PostReflect around every way `reflect` launches a run: one conversation,
several (`--recent`, repeated `--conversation`) and the whole backlog (`--all`), once per
launch, with one payload shape."""

from __future__ import annotations

from pathlib import Path

from mini_letta.reflection.policy.launcher import QueuedLaunch, drained_after, put_queued_launch
from mini_letta.reflection.state.records import list_run_records
from mini_letta.settings import read_settings
from mini_letta.workspace import resolve_conversation
from support.hooks import hook_entry, hook_script, recorder, seen, write_hooks
from support.reflection_kit import add_turn

# What every reflect hook is told, whichever way the run was launched.
PAYLOAD = {
    "session_id",
    "transcript_path",
    "cwd",
    "permission_mode",
    "hook_event_name",
    "trigger",
    "conversation_ids",
}


def test_every_reflect_path_runs_the_reflect_hooks_once_with_one_shape(
    cli, home, project, tmp_path: Path
):
    assert cli("chat", "-p", "I prefer tabs for indentation").code == 0
    assert cli("chat", "--new", "-p", "Our CI runs on GitHub Actions").code == 0
    before, after = tmp_path / "pre.jsonl", tmp_path / "post.jsonl"
    write_hooks(
        home.settings_file,
        {
            "PreReflect": [hook_entry(recorder(tmp_path, "pre.sh", before))],
            "PostReflect": [hook_entry(recorder(tmp_path, "post.sh", after), "manual")],
        },
    )

    result = cli("reflect", "--recent", "2")  # one run over both conversations
    assert result.code == 0, result.stderr
    [pre], [post] = seen(before), seen(after)
    assert set(pre) == PAYLOAD and set(post) == PAYLOAD | {"outcome"}
    assert pre["trigger"] == post["trigger"] == "manual"
    assert len(set(post["conversation_ids"])) == 2
    assert post["session_id"] == post["conversation_ids"][0]
    assert post["outcome"]["status"] == "merged"

    assert cli("chat", "-p", "Releases are tagged on Fridays").code == 0
    result = cli("reflect", "--all")  # the backlog, one launch per slice
    assert result.code == 0, result.stderr
    pres, posts = seen(before)[1:], seen(after)[1:]
    assert len(pres) == len(posts) >= 1
    assert all(set(p) == PAYLOAD for p in pres)
    assert posts[-1]["outcome"]["launched"] is True
    assert posts[-1]["conversation_ids"] == [posts[-1]["session_id"]]

    single = cli("reflect")  # nothing new: the single path, the same shape
    assert single.code == 0, single.stderr
    assert set(seen(before)[-1]) == PAYLOAD and set(seen(after)[-1]) == PAYLOAD | {"outcome"}

    runs = len(list_run_records(home, read_settings(home, project).current_agent_id() or ""))
    assert cli("chat", "-p", "Deploys need two approvals").code == 0
    hook = hook_script(tmp_path, "no.sh", 'echo "memory is frozen this week" >&2; exit 2')
    write_hooks(home.settings_file, {"PreReflect": [hook_entry(hook)]})
    for args in (("--recent", "2"), ("--all",), ()):
        result = cli("reflect", *args)
        assert result.code == 1 and "memory is frozen this week" in result.stderr, args
    transcript = tmp_path / "imported.jsonl"
    transcript.write_text('{"role": "user", "content": "Our staging host is blue"}\n')
    result = cli("import", str(transcript), "--reflect")  # the import's own backlog run
    assert "memory is frozen this week" in result.stderr, result.stderr
    agent_id = read_settings(home, project).current_agent_id() or ""
    assert len(list_run_records(home, agent_id)) == runs  # held back: nothing ran


def test_a_queued_launch_runs_the_reflect_hooks_when_it_is_drained(world, agent, tmp_path):
    store = resolve_conversation(world, agent, None, new=True)
    add_turn(store, world.clock, "我更喜欢用 tabs 缩进")
    before, after = tmp_path / "pre.jsonl", tmp_path / "post.jsonl"
    write_hooks(
        world.home.settings_file,
        {
            "PreReflect": [hook_entry(recorder(tmp_path, "pre.sh", before))],
            "PostReflect": [hook_entry(recorder(tmp_path, "post.sh", after))],
        },
    )
    entry = QueuedLaunch("compaction-event", store.conversation_id, "2026-10-08T16:00:00Z", 1)
    put_queued_launch(world.home, agent.id, entry)
    with drained_after(world, agent.id):
        pass  # the launch whose lease it queued behind ended here
    [pre], [post] = seen(before), seen(after)
    assert set(pre) == PAYLOAD and pre["trigger"] == "compaction-event"
    assert post["conversation_ids"] == [store.conversation_id] == [post["session_id"]]
    assert post["outcome"]["launched"] is True
