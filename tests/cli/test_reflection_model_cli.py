"""A reflection model of its own: stored by `sleeptime --model`, overridden by `reflect --model`,
with its own context window, and named in its errors."""

from __future__ import annotations

import json

from mini_letta.home import Home
from mini_letta.reflection.state.records import list_run_records
from mini_letta.reflection.state.settings import ReflectionSettings, layer_settings
from support.agents import fresh_agent

HUMAN = "system/human.md"


def _script(tmp_path, name, entries):
    path = tmp_path / name
    path.write_text(json.dumps(entries, ensure_ascii=False))
    return f"script:{path}"


def _remembering(tmp_path, name, line):
    return _script(
        tmp_path,
        name,
        [
            {
                "toolCalls": [
                    {
                        "name": "memory",
                        "arguments": {"command": "insert", "path": HUMAN, "content": line},
                    }
                ]
            },
            {
                "toolCalls": [
                    {"name": "memory_commit", "arguments": {"message": "reflection: remember"}}
                ]
            },
            "done",
        ],
    )


def _agent_id(cli):
    return json.loads(cli("agents", "show", "--json").stdout)["id"]


def test_sleeptime_model_is_used_and_reflect_model_overrides_it(cli, project_agent, tmp_path, home):
    assert cli("chat", "-p", "I prefer tea").code == 0
    stored = _remembering(tmp_path, "stored.json", "- Prefers tea")
    shown = cli("sleeptime", "--model", stored)
    assert shown.code == 0 and json.loads(shown.stdout)["model"] == stored
    first = cli("reflect")
    assert first.code == 0, first.stderr
    assert "- Prefers tea" in cli("memory", "show", HUMAN).stdout
    assert cli("chat", "-p", "I prefer green tea").code == 0
    once = _remembering(tmp_path, "once.json", "- Prefers green tea")
    second = cli("reflect", "--model", once)
    assert second.code == 0, second.stderr
    assert "- Prefers green tea" in cli("memory", "show", HUMAN).stdout
    models = [r.model for r in list_run_records(Home(home.root), _agent_id(cli))]
    assert sorted(models) == sorted([once, stored])  # run ids of one second sort at random
    assert json.loads(cli("sleeptime").stdout)["model"] == stored
    assert "model" not in json.loads(cli("sleeptime", "--model", "").stdout)


def test_errors_name_the_reflection_model(cli, project_agent, tmp_path):
    assert cli("chat", "-p", "I prefer tea").code == 0
    down = _script(tmp_path, "down.json", [{"error": "auth", "message": "bad key"}])
    failed = cli("reflect", "--model", down)
    assert failed.code == 1
    assert f"reflection model {down}: " in failed.stderr and "bad key" in failed.stderr
    missing = cli("reflect", "--model", f"script:{tmp_path / 'nope.json'}")
    assert missing.code == 1 and "reflection model script:" in missing.stderr
    assert "Traceback" not in missing.stderr
    bad = cli("sleeptime", "--model", "nonsense")
    assert bad.code == 2 and "unknown model" in bad.stderr


def test_a_reflection_model_never_takes_the_agents_window_override(world, tmp_path):
    from mini_letta.llm.script import SCRIPT_CONTEXT_WINDOW
    from mini_letta.reflection.run.setup import LaunchOptions, reflection_provider

    agent = fresh_agent(world).with_updates(model="mock", context_window=50_000)
    script = _remembering(tmp_path, "s.json", "- Drinks tea")
    stored = ReflectionSettings(model=script)
    provider = reflection_provider(world, agent, stored, LaunchOptions())
    assert (provider.handle, provider.context_window) == (script, SCRIPT_CONTEXT_WINDOW)
    own = reflection_provider(world, agent, ReflectionSettings(), LaunchOptions())
    assert own.context_window == 50_000  # the agent's model keeps a real override


def test_a_chats_context_window_never_reaches_the_reflection_or_its_review(
    cli, project_agent, home
):
    from mini_letta.llm.mock import MOCK_CONTEXT_WINDOW

    assert (
        cli("sleeptime", "--trigger", "step-count", "--steps", "1", "--merge", "explicit").code == 0
    )
    chat = cli("chat", "-p", "我更喜欢用 tabs 缩进", "--context-window", "1200")
    assert chat.code == 0 and "reflection" in chat.stderr and "merged" in chat.stderr
    (record,) = list_run_records(Home(home.root), _agent_id(cli))
    assert record.status == "merged" and record.merge_mode == "explicit"
    assert record.budget["contextWindow"] == MOCK_CONTEXT_WINDOW  # the model's own, not 1200


def test_the_agents_model_keeps_a_served_window_that_holds_a_reflection(world):
    from mini_letta.llm.mock import MOCK_CONTEXT_WINDOW
    from mini_letta.reflection.run.setup import side_agent_provider

    agent = fresh_agent(world).with_updates(model="mock")
    served = agent.with_updates(context_window=4_096)  # llama.cpp's usual n_ctx
    assert side_agent_provider(world, served).context_window == 4_096
    for_chats = agent.with_updates(context_window=1_200)  # too small for any reflection
    assert side_agent_provider(world, for_chats).context_window == MOCK_CONTEXT_WINDOW


def test_the_settings_layer_keeps_model_and_base_url():
    settings = layer_settings([("x", {"model": "ollama/qwen3", "baseUrl": "http://h:1/v1"})])
    assert settings == ReflectionSettings(model="ollama/qwen3", base_url="http://h:1/v1")


def test_a_new_reflection_model_does_not_inherit_the_old_ones_server(cli, project_agent):
    url = "http://127.0.0.1:9/v1"
    stored = json.loads(cli("sleeptime", "--model", "ollama/qwen3", "--base-url", url).stdout)
    assert stored["baseUrl"] == url
    assert json.loads(cli("sleeptime", "--base-url", url).stdout)["model"] == "ollama/qwen3"
    other = json.loads(cli("sleeptime", "--model", "anthropic/claude-sonnet-4-5").stdout)
    assert other["model"] == "anthropic/claude-sonnet-4-5" and "baseUrl" not in other
    cli("sleeptime", "--model", "ollama/qwen3", "--base-url", url)
    reset = json.loads(cli("sleeptime", "--model", "").stdout)
    assert "model" not in reset and "baseUrl" not in reset  # back to the agent's model and URL
