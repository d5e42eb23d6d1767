"""`mini-letta models`, and aliases on the command line: `--model sonnet` is stored resolved."""

from __future__ import annotations

import json


def test_models_lists_aliases_providers_with_keys_and_the_new_agent_model(cli):
    env = {"OPENAI_API_KEY": "sk-live-do-not-print", "OLLAMA_HOST": "gpu-box"}
    result = cli("models", env=env)
    assert result.code == 0, result.stderr
    assert "sk-live-do-not-print" not in result.stdout + result.stderr
    rows = result.stdout.splitlines()
    assert any(row.split() == ["sonnet", "anthropic/claude-sonnet-5-5"] for row in rows)
    assert any(row.split()[:3] == ["openai", "OPENAI_API_KEY", "set"] for row in rows)
    assert any(row.split()[:4] == ["anthropic", "ANTHROPIC_API_KEY", "not", "set"] for row in rows)
    assert "http://gpu-box:11434 (from OLLAMA_HOST)" in result.stdout
    assert "A new agent here gets openai/gpt-4o (OPENAI_API_KEY is set)." in result.stdout
    data = json.loads(cli("models", "--json").stdout)
    assert data["aliases"]["haiku"] == "anthropic/claude-haiku-4-5"
    assert data["newAgentModel"] == {"handle": "mock", "reason": "no model key is set"}


def test_an_alias_creates_an_agent_on_the_resolved_handle(cli):
    created = cli("agents", "create", "--model", "gpt-5", "--json")
    assert created.code == 0, created.stderr
    shown = json.loads(cli("agents", "show", "--json").stdout)
    assert shown["model"] == "openai/gpt-5"
    bad = cli("chat", "-p", "x", "--model", "sonet")
    assert bad.code == 2 and "sonnet, opus, haiku" in bad.stderr
