"""The README's library example runs as written, and never needs the CLI."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from support.cli import cli_env

README = Path(__file__).resolve().parents[2] / "README.md"
NO_CLI = """
import sys as _sys
_cli = sorted(m for m in _sys.modules if m == "mini_letta.cli" or m.startswith("mini_letta.cli."))
print("CLI MODULES", _cli)
"""


def _library_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## As a library", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README has no python block under 'As a library'"
    return match.group(1)


def test_readme_library_example_reflects_without_the_cli(home, project):
    proc = subprocess.run(
        [sys.executable, "-c", _library_example() + NO_CLI],
        cwd=project,
        env=cli_env(home.root),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "（mock）我听到了：我更喜欢用 tabs 缩进" in proc.stdout
    assert "Merged 1 reflection commit(s)." in proc.stdout  # the outcome reached the sink
    assert "tabs" in proc.stdout.split("Merged", 1)[1]  # and the memory says so
    assert "CLI MODULES []" in proc.stdout
