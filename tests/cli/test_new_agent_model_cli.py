"""A new agent gets a real model when a key is in the environment, and says which."""

from __future__ import annotations

import io
import json

from mini_letta import log
from mini_letta.clock import SystemClock
from mini_letta.settings import load_global_settings
from mini_letta.workspace import World, new_agent
from support.groups import SDK
from support.scripted_server import anthropic_stream, openai_stream

pytestmark = SDK


def _model(cli) -> str:
    return str(json.loads(cli("agents", "show", "--json").stdout)["model"])


def test_an_anthropic_key_gives_a_new_agent_claude(cli, scripted_server):
    scripted_server.queue(anthropic_stream("Bonjour."), anthropic_stream("Encore."))
    env = {"ANTHROPIC_API_KEY": "sk-ant-dummy", "ANTHROPIC_BASE_URL": scripted_server.url}
    result = cli("chat", "-p", "salut", env=env)
    assert result.code == 0, result.stderr
    assert result.stdout == "Bonjour.\n"
    assert result.stderr == (
        "mini-letta: new agent project uses anthropic/claude-sonnet-5-5 "
        "(ANTHROPIC_API_KEY is set)\n"
    )
    assert scripted_server.requests[0].body["model"] == "claude-sonnet-5-5"
    again = cli("chat", "-p", "encore", env=env)  # the agent's model now, said no more
    assert (again.stdout, again.stderr) == ("Encore.\n", "")
    assert _model(cli) == "anthropic/claude-sonnet-5-5"


def test_an_openai_key_gives_a_new_agent_gpt(cli, scripted_server):
    scripted_server.queue(openai_stream("Hi."))
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": scripted_server.url + "/v1"}
    result = cli("chat", "-p", "hi", env=env)
    assert result.code == 0 and result.stdout == "Hi.\n", result.stderr
    assert "uses openai/gpt-4o (OPENAI_API_KEY is set)" in result.stderr
    assert scripted_server.requests[0].body["model"] == "gpt-4o"


def test_ollama_host_gives_a_local_model_at_that_host(cli, scripted_server):
    scripted_server.queue(openai_stream("Local."))
    host = scripted_server.url.removeprefix("http://")  # as ollama writes it: host:port
    result = cli("chat", "-p", "hi", env={"OLLAMA_HOST": host})
    assert result.code == 0 and result.stdout == "Local.\n", result.stderr
    assert f"uses ollama/llama3.2 (OLLAMA_HOST is {host})" in result.stderr
    assert scripted_server.requests[0].path == "/v1/chat/completions"


def test_a_configured_default_wins_over_keys_and_is_not_announced(cli, project):
    env = {"ANTHROPIC_API_KEY": "sk-ant-dummy", "MINI_LETTA_MODEL": "mock"}
    result = cli("chat", "-p", "hi", env=env)
    assert result.code == 0 and result.stdout.startswith("（mock）") and result.stderr == ""


def test_the_creating_chats_model_beats_a_key(cli, project):
    (project / "s.json").write_text('["scripted"]')
    result = cli("chat", "-p", "hi", "--model", "script:s.json", env={"OPENAI_API_KEY": "k"})
    assert result.code == 0 and result.stderr == "", result.stderr
    assert _model(cli) == "script:s.json"


def test_without_a_key_scripts_see_the_chapter_unchanged(cli):
    result = cli("chat", "-p", "帮我看下这个报错")
    assert (result.code, result.stdout, result.stderr) == (
        0,
        "（mock）我听到了：帮我看下这个报错\n",
        "",
    )
    assert _model(cli) == "mock"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_person_is_told_once_per_home_how_to_choose_a_real_model(home, project):
    world = World(home=home, cwd=project, environ={}, clock=SystemClock())
    said = _Tty()
    with log.warnings_to(said):
        new_agent(world, name="one")
        new_agent(world, name="two")
    lines = said.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mini-letta: new agent one uses the offline")
    assert "ANTHROPIC_API_KEY" in lines[0] and "--model" in lines[0]
    assert load_global_settings(home)["mockHintShown"] is True
    quiet = io.StringIO()  # a script's stderr: no hint, and none recorded as said
    other = World(home=home.__class__(home.root.parent / "h2"), cwd=project, environ={},
                  clock=SystemClock())  # fmt: skip
    with log.warnings_to(quiet):
        new_agent(other, name="three")
    assert quiet.getvalue() == "" and "mockHintShown" not in load_global_settings(other.home)
