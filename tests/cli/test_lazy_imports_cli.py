"""What a real process loads: `--version`, a plain mock turn and `status` never pay for the
subsystems they do not use (tests/unit/test_architecture.py checks the source; this checks what
is imported, by name, so it fails the day an import moves back to the top of a module).

The names are the expensive parts: model SDKs, the reflection run machinery, memory sync, the
secret scanner's pattern table, compaction, recall search, the interactive terminal's libraries
and stdlib modules that cost milliseconds to import (`subprocess`: a plain turn runs no git;
`dataclasses`: it brings `inspect`, and each definition compiles its methods; `logging`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.cli import cli_env

SDKS = ("openai", "anthropic", "httpx", "httpx2", "mcp", "mcp_types", "yaml", "acp", "pydantic")
TERMINAL_UI = ("rich", "prompt_toolkit", "pygments")

PROBE = """
import sys
before = set(sys.modules)
from mini_letta.cli.main import main
code = main(sys.argv[1:])
loaded = sorted(set(sys.modules) - before)
import json
print("\\nMODULES " + json.dumps({"code": code, "loaded": loaded}))
"""

# Loaded by neither a plain turn nor `status`.
NEVER = (
    *SDKS,
    *TERMINAL_UI,
    "filelock",
    "pathspec",  # only when Grep or Glob lists a project with an ignore file
    "mini_letta.reflection.run.launch",
    "mini_letta.reflection.run.setup",
    "mini_letta.reflection.run.execute",
    "mini_letta.reflection.run.agent",
    "mini_letta.reflection.run.finalise",
    "mini_letta.reflection.gate.check",
    "mini_letta.reflection.run.payload",
    "mini_letta.reflection.run.worktree",
    "mini_letta.llm.mock_reflection",
    "mini_letta.llm.mock_summary",
    "mini_letta.memory.secrets",
    "mini_letta.memory.secret_patterns",
    "mini_letta.memory.secret_values",
    "mini_letta.memory.secret_eval",
    "mini_letta.memory.edits",
    "mini_letta.context.compaction",
    "mini_letta.context.summariser",
    "mini_letta.search",
    "mini_letta.interop",
    "mini_letta.acp",  # `mini-letta acp` alone: the editor protocol and its SDK
    "mini_letta.mcp_client",  # only when an MCP server is configured
    "mini_letta.hooks",  # only when a settings file has `hooks`
    "mini_letta.palace.doctor",
    "mini_letta.palace.gather",
    "mini_letta.palace.page",
    "mini_letta.palace.lines",
    "mini_letta.cli.commands.interactive",
    "secrets",
    "hashlib",
    "shutil",
    "dataclasses",  # records are mini_letta.structs: a dataclass compiles its methods at import
    "logging",  # mini_letta.log imports it only for a library's caller, not a command
)

# Loaded by `status`, but not by a turn with nothing due: its decision needs only the
# trigger and the settings.
NOT_IN_A_TURN = (
    "mini_letta.reflection.policy.launcher",
    "mini_letta.reflection.state.outcome",
    "mini_letta.reflection.state.lease",
    "mini_letta.reflection.state.records",
    "mini_letta.reflection.state.watermark",
    "mini_letta.reflection.history.health",
    "mini_letta.sync",
    "mini_letta.storage.damaged",
    "subprocess",
)


def _probe(home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=cli_env(home, env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("MODULES "))
    result = json.loads(line.removeprefix("MODULES "))
    assert result["code"] == 0, proc.stderr
    loaded: list[str] = result["loaded"]
    return loaded


def _found(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    """The modules of `loaded` that are one of `names` or inside one of them."""
    return [m for m in loaded if any(m == n or m.startswith(n + ".") for n in names)]


def test_version_loads_the_entry_point_alone(home, project):
    loaded = _probe(home.root, project, "--version")
    assert [m for m in loaded if m.startswith("mini_letta")] == [
        "mini_letta",
        "mini_letta.cli",
        "mini_letta.cli.main",
    ]
    # typing (with re and enum) would double the cost of `--version`; click is a third of a turn
    assert _found(loaded, ("typing", "re", "enum", "click", "dataclasses", *SDKS)) == []


def test_plain_mock_turn_loads_only_what_it_uses(home, project):
    # the first turn also makes the agent, its memory repo and the conversation: no SDK, no yaml
    assert _found(_probe(home.root, project, "chat", "-p", "hello"), SDKS) == []
    loaded = _probe(home.root, project, "chat", "-p", "hello again")
    assert _found(loaded, NEVER) == []
    assert _found(loaded, NOT_IN_A_TURN) == []
    # the plain `chat -p TEXT` is read without click (cli/chat_args.py): no command tree
    assert _found(loaded, ("click", "mini_letta.cli.commands", "mini_letta.cli.options")) == []


def test_a_chat_line_that_is_not_plain_goes_through_click(cli, home, project):
    assert cli("chat", "-p", "hello").code == 0
    loaded = _probe(home.root, project, "chat", "--max-steps", "3", "-p", "hello again")
    assert _found(loaded, NEVER) == []
    commands = [m for m in loaded if m.startswith("mini_letta.cli.commands.")]
    assert commands == ["mini_letta.cli.commands.chat", "mini_letta.cli.commands.root"]


def test_status_loads_no_run_machinery_and_no_turn_loop(cli, home, project):
    assert cli("chat", "-p", "hello").code == 0
    loaded = _probe(home.root, project, "status")
    assert _found(loaded, NEVER) == []
    assert _found(loaded, ("mini_letta.loop", "mini_letta.llm.base", "mini_letta.tools.base")) == []


def test_a_turn_after_a_compaction_loads_no_compaction_machinery(cli, home, project):
    for text in ("first", "second", "third"):
        assert cli("chat", "-p", text).code == 0
    assert cli("compact").code == 0  # the view now starts at a summary, which each turn checks
    assert cli("chat", "-p", "the turn that reflects on the compaction").code == 0
    loaded = _probe(home.root, project, "chat", "-p", "after the summary")
    assert _found(loaded, NEVER) == []


def test_context_on_a_real_model_agent_loads_no_sdk(cli, home, project):
    """`context` only needs the model's window, so neither SDK is imported nor a client made."""
    for model in ("openai/gpt-4o", "anthropic/claude-sonnet-4-5"):
        name = model.partition("/")[0]
        assert cli("agents", "create", "--name", name, "--model", model).code == 0
        assert cli("chat", "-p", "hi", "--agent", name, "--model", "mock").code == 0
        keys = {"OPENAI_API_KEY": "sk-test-dummy", "ANTHROPIC_API_KEY": "sk-ant-test-dummy"}
        loaded = _probe(home.root, project, "context", "--agent", name, env=keys)
        assert _found(loaded, SDKS) == [], model


def test_a_real_models_turn_without_skills_loads_no_skills_machinery(cli, home, project):
    script = project / "replies.json"
    script.write_text('["hi"]')
    assert cli("chat", "-p", "hello", "--model", f"script:{script}").code == 0
    loaded = _probe(home.root, project, "chat", "-p", "again", "--model", f"script:{script}")
    assert _found(loaded, ("mini_letta.skills", "mini_letta.tools.skill_tool")) == []
    (project / ".claude" / "skills" / "fmt").mkdir(parents=True)
    (project / ".claude" / "skills" / "fmt" / "SKILL.md").write_text(
        "---\nname: fmt\ndescription: Format.\n---\n"
    )
    loaded = _probe(home.root, project, "chat", "-p", "again", "--model", f"script:{script}")
    assert "mini_letta.skills.discover" in loaded and "yaml" not in loaded
