"""The mock path and --version never pay for the model SDKs (tests/unit/test_architecture.py
checks the source; this checks what a real process actually loads)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.cli import cli_env

HEAVY = ("openai", "anthropic", "httpx", "httpx2")
MOCK_REFLECTION = "mini_letta.llm.mock_reflection"  # its patterns cost more than a chat turn

PROBE = """
import json, sys
from mini_letta.cli.main import main
code = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy} or m in {heavy})
commands = sorted(m for m in sys.modules if m.startswith("mini_letta.cli.commands."))
print("\\nMODULES " + json.dumps({{"code": code, "heavy": heavy, "commands": commands}}))
"""


def _probe(home: Path, cwd: Path, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=set(HEAVY) | {"yaml", MOCK_REFLECTION}), *args],
        cwd=cwd,
        env=cli_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("MODULES "))
    return json.loads(line.removeprefix("MODULES "))


def test_version_imports_no_sdk_and_no_yaml(home, project):
    result = _probe(home.root, project, "--version")
    assert result["code"] == 0 and result["heavy"] == []
    assert result["commands"] == []  # answered before the command tree (and click) is loaded


def test_mock_turn_imports_no_sdk(home, project):
    result = _probe(home.root, project, "chat", "-p", "hello")
    assert result["code"] == 0
    assert [m for m in result["heavy"] if m.split(".")[0] in HEAVY] == []
    assert MOCK_REFLECTION not in result["heavy"]  # a chat turn with nothing due never needs it
    assert result["commands"] == ["mini_letta.cli.commands.chat", "mini_letta.cli.commands.root"]
