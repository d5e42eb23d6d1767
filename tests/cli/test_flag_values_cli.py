"""Flag values that used to be accepted silently (or failed with exit 1) are usage errors."""

from __future__ import annotations

import json

import pytest

from support.agents import fresh_agent


@pytest.fixture
def agent_x(world):
    """What `agents create --name x` leaves: a copy of that agent made once per worker."""
    return fresh_agent(world, name="x", current=True)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["chat", "-p", "hi", "--new", "--conversation", "conv-x"], "--new and --conversation"),
        (["chat", "-p", "hi", "--model", "nonsense"], "--model"),
        (["chat", "-p", "hi", "--model", ""], "--model"),
        (["chat", "-p", "hi", "--base-url", "not a url"], "--base-url"),
        (["chat", "-p", ""], "prompt is empty"),
        (["chat", "-p", "hi", "--max-steps", "-1"], "--max-steps"),
        (["chat", "-p", "hi", "--context-window", "0"], "--context-window"),
        (["agents", "create", "--name", ""], "--name"),
        (["agents", "create", "--name", "   "], "--name"),
        (["agents", "create", "--name", "a/b"], "--name"),
        (["agents", "create", "--name", "tab\there"], "--name"),
        (["agents", "create", "--model", "nonsense"], "--model"),
        (["agents", "create", "--base-url", "notaurl"], "--base-url"),
        (["agents", "create", "--base-url", "ftp://host"], "--base-url"),
        (["agents", "create", "--context-window", "0"], "--context-window"),
        (["agents", "create", "--max-output-tokens", "-5"], "--max-output-tokens"),
        (["agents", "set", "--model", "nonsense"], "--model"),
        (["agents", "set", "--base-url", "host:80"], "--base-url"),
        (["agents", "rename", "x", ""], "NEW_NAME"),
        (["sleeptime", "--trigger", "step-count", "--steps", "-1"], "--steps"),
        (["sleeptime", "--trigger", "step-count", "--steps", "0"], "--steps"),
        (["reflect", "--recent", "0"], "--recent"),
        (["memory", "log", "-n", "0"], "-n"),
        (["conversations", "show", "conv-x", "--last", "-1"], "--last"),
        (["chat", "-p", "hi", "--agent", ""], "--agent"),
        (["chat", "-p", "hi", "--conversation", " "], "--conversation"),
        (["memory", "path", "--agent", ""], "--agent"),
        (["compact", "--conversation", ""], "--conversation"),
        (["reflect", "--conversation", ""], "--conversation"),
        (["reflect", "-i", ""], "--instruction"),
    ],
    ids=lambda value: value if isinstance(value, str) else " ".join(value),
)
def test_bad_values_are_usage_errors_naming_the_flag(cli, agent_x, args, needle):
    before = json.loads(cli("agents", "list", "--json").stdout)
    result = cli(*args)
    assert result.code == 2, result.stderr
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert json.loads(cli("agents", "list", "--json").stdout) == before


def test_empty_base_url_still_clears_the_agents_url(cli):
    cli("agents", "create", "--name", "x", "--model", "vllm/q", "--base-url", "http://h:1/v1")
    assert cli("agents", "set", "--base-url", "").code == 0
    assert "baseUrl" not in json.loads(cli("agents", "show", "--json").stdout)
