"""The README's Zed `agent_servers` entry is valid JSON that starts the `acp` command."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mini_letta.cli.commands import COMMANDS

README = Path(__file__).resolve().parents[3] / "README.md"


def test_the_zed_entry_parses_and_names_the_acp_command():
    text = README.read_text(encoding="utf-8")
    section = text.split("## In your editor: `mini-letta acp`", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```json\n(.*?)```", section, re.S)
    assert match, "the ACP section has no JSON block"
    entry = json.loads(match.group(1))["agent_servers"]["mini-letta"]
    assert entry["type"] == "custom" and entry["command"] == "mini-letta"
    assert entry["args"][0] in COMMANDS and entry["args"] == ["acp"]
