"""In a real turn, no credential from the environment or a file reaches messages.jsonl or the UI.

The script provider plays a model that goes looking for keys; Bash and Read run for real.
"""

from __future__ import annotations

import json
import os

from mini_letta.loop.events import ToolResultEvent
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.workspace import World, new_agent, resolve_conversation

OPENAI_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
PASSWORD = "correct-horse-battery"


def _turn(home, project, clock, calls):
    environ = {
        "PATH": os.environ["PATH"],
        "OPENAI_API_KEY": OPENAI_KEY,
        "SERVICE_PASSWORD": PASSWORD,
        "MY_TOKEN": "allowed-value-42",
    }
    world = World(home=home, cwd=project, environ=environ, clock=clock)
    script = project.parent / "script.json"
    script.write_text(json.dumps([{"toolCalls": calls}, "Done."]), encoding="utf-8")
    agent = new_agent(world, model=f"script:{script}")
    store = resolve_conversation(world, agent, None)
    options = TurnOptions(permission_mode="bypassPermissions", tools=("Bash", "Read"))
    events = list(run_turn(build_turn_setup(world, agent, store, options), "find the keys"))
    shown = "".join(e.result.content for e in events if isinstance(e, ToolResultEvent))
    stored = (store.dir / "messages.jsonl").read_text(encoding="utf-8")
    return shown, stored


def test_turn_never_stores_or_shows_a_credential(home, project, clock):
    (project / ".env").write_text(f"OPENAI_API_KEY={OPENAI_KEY}\nPASS={PASSWORD}\n")
    calls = [
        {"name": "Bash", "arguments": {"command": "env; echo ${OPENAI_API_KEY:-unset}"}},
        {"name": "Bash", "arguments": {"command": "cat .env"}},
        {"name": "Read", "arguments": {"path": ".env"}},
    ]
    shown, stored = _turn(home, project, clock, calls)
    for text in (shown, stored):
        assert OPENAI_KEY not in text and PASSWORD not in text
        assert "OPENAI_API_KEY=" not in text.split("unset")[0]  # not in the shell's env
    assert "unset" in shown
    assert "<redacted:SERVICE_PASSWORD>" in shown and "<redacted:" in stored


def test_bash_env_allow_setting_passes_a_variable_through(home, project, clock):
    home.root.mkdir(parents=True, exist_ok=True)
    home.settings_file.write_text(json.dumps({"bashEnvAllow": ["MY_TOKEN"]}))
    shown, _ = _turn(
        home, project, clock, [{"name": "Bash", "arguments": {"command": "env | sort"}}]
    )
    assert "MY_TOKEN=" in shown and "OPENAI_API_KEY" not in shown
