"""What the home keeps besides the conversation log holds no recognisable credential: a run's
transcript (the reflection agent's tool-call arguments too), conversation titles and the prompt
cache."""

from __future__ import annotations

import json

from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from support.memory import commit_all, write_file
from support.reflection_kit import ScriptedProvider, add_turn, respond, tool_call

GHP = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS = "AKIAIOSFODNN7EXAMPLE"


def test_a_run_transcript_keeps_no_credential_the_agent_wrote_in_a_tool_call(world, agent, store):
    add_turn(store, world.clock, "I prefer tabs", answer="noted")
    edit = {"command": "create", "path": "notes/k.md", "description": "k", "content": f"{GHP}"}
    provider = ScriptedProvider(
        [respond(f"the token {AWS}", tool_call("memory", 1, **edit)), respond("done")]
    )
    outcome = launch_reflection(world, agent, store, LaunchOptions(provider=provider))
    folder = world.home.reflections_dir(agent.id)
    kept = "".join(p.read_text() for p in folder.iterdir() if p.suffix in (".json", ".jsonl"))
    assert list(folder.glob(f"{outcome.run_id}*.jsonl"))
    assert GHP not in kept and AWS not in kept
    assert "<redacted:" in kept


def test_a_credential_escaped_inside_json_arguments_is_redacted_too(world, agent, store):
    add_turn(store, world.clock, "I prefer tabs", answer="noted")
    value = "4x72H4zFjaAixEvUWDH9"
    content = f'- config {{"api_key": "{value}"}}'
    edit = {"command": "create", "path": "notes/k.md", "description": "k", "content": content}
    provider = ScriptedProvider([respond("", tool_call("memory", 1, **edit)), respond("done")])
    launch_reflection(world, agent, store, LaunchOptions(provider=provider))
    folder = world.home.reflections_dir(agent.id)
    kept = "".join(p.read_text() for p in folder.glob("*.jsonl"))
    assert value not in kept


def test_a_title_never_holds_a_credential(cli, home):
    assert cli("chat", "-p", f"deploy with {GHP} please").code == 0
    records = list(home.root.rglob("conversation.json"))
    titles = [json.loads(p.read_text())["title"] for p in records]
    assert titles and all(GHP not in t for t in titles) and "<redacted:" in titles[0]


def test_an_imported_transcript_s_title_holds_no_credential(cli, home, project):
    line = {"role": "user", "content": f"the key is {AWS}", "createdAt": "2025-05-01T10:00:00Z"}
    (project / "t.jsonl").write_text(json.dumps(line) + "\n")
    assert cli("import", "t.jsonl").code == 0
    titles = [json.loads(p.read_text())["title"] for p in home.root.rglob("conversation.json")]
    assert titles and all(AWS not in t for t in titles)


def test_the_prompt_cache_and_the_prompt_hold_no_credential_committed_by_hand(world, agent):
    memory = world.home.memory_dir(agent.id)
    write_file(memory, "system/ops.md", f"---\ndescription: ops\n---\n- token {GHP}\n")
    commit_all(memory, "by hand, outside mini-letta")
    from mini_letta.memory.compile import PromptCompiler

    cache = world.home.prompt_cache_file(agent.id)
    prompt = PromptCompiler(memory, cache).compile("base", {})
    assert GHP not in prompt and "<redacted:" in prompt
    assert GHP not in cache.read_text()
