"""What a real process loads: `--version`, a plain mock turn and `status` never pay for the
subsystems they do not use (tests/unit/test_architecture.py checks the source; this checks what
is imported, by name, so it fails the day an import moves back to the top of a module). The
commands after `--version` run in two probe processes (support/import_probe.py), ordered so
that each check holds for every command before it: modules loaded stay loaded.

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
from support.import_probe import ImportProbe

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
    "socket",  # a lease's host name comes from uname
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


def _probe(home: Path, cwd: Path, *args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=cli_env(home),
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


def _found(loaded: list[str] | set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of `loaded` that are one of `names` or inside one of them."""
    return sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in names))


def test_version_loads_the_entry_point_alone(home, project):
    loaded = _probe(home.root, project, "--version")
    assert [m for m in loaded if m.startswith("mini_letta")] == [
        "mini_letta",
        "mini_letta.cli",
        "mini_letta.cli.main",
    ]
    # typing (with re and enum) would double the cost of `--version`; click is a third of a turn
    assert _found(loaded, ("typing", "re", "enum", "click", "dataclasses", *SDKS)) == []


def test_turns_and_the_reflection_worker_load_only_what_they_use(cli, home, project, tmp_path):
    first = json.loads(cli("chat", "-p", "hello", "--output-format", "json").stdout)
    other = tmp_path / "other"  # another project, whose agents this project's turns leave alone
    other.mkdir()
    # an agent whose conversation's view starts at a summary, which each turn checks
    assert cli("agents", "create", "--name", "squeezed", cwd=other).code == 0
    for text in ("first", "second", "third"):
        assert cli("chat", "--agent", "squeezed", "-p", text, cwd=other).code == 0
    assert cli("compact", "--agent", "squeezed", cwd=other).code == 0
    assert cli("chat", "--agent", "squeezed", "-p", "the turn after it", cwd=other).code == 0
    # a real model's turns: the scripted provider
    script = tmp_path / "replies.json"
    script.write_text('["hi", "hi", "hi"]')
    model = f"script:{script}"
    assert cli("agents", "create", "--name", "scripted", "--model", model, cwd=other).code == 0
    assert cli("chat", "--agent", "scripted", "-p", "hello", cwd=other).code == 0
    fresh = tmp_path / "fresh-project"
    fresh.mkdir()
    with ImportProbe(home.root, tmp_path / "probe") as probe:
        probe.run("chat", "-p", "hello again", cwd=project)
        assert _found(probe.loaded, NEVER) == []
        assert _found(probe.loaded, NOT_IN_A_TURN) == []
        # the plain `chat -p TEXT` is read without click (cli/chat_args.py): no command tree
        plain_only = ("click", "mini_letta.cli.commands", "mini_letta.cli.options")
        assert _found(probe.loaded, plain_only) == []

        probe.run("chat", "--agent", "squeezed", "-p", "after the summary", cwd=other)
        assert _found(probe.loaded, NEVER) == []

        # a real model's turn loads the skills machinery only where there are skills
        probe.run("chat", "--agent", "scripted", "-p", "again", cwd=other)
        assert _found(probe.loaded, ("mini_letta.skills", "mini_letta.tools.skill_tool")) == []
        (other / ".claude" / "skills" / "fmt").mkdir(parents=True)
        (other / ".claude" / "skills" / "fmt" / "SKILL.md").write_text(
            "---\nname: fmt\ndescription: Format.\n---\n"
        )
        probe.run("chat", "--agent", "scripted", "-p", "again", cwd=other)
        assert "mini_letta.skills.discover" in probe.loaded and "yaml" not in probe.loaded

        # the first turn of a project also makes its agent, memory repo and conversation
        probe.run("chat", "-p", "hello", cwd=fresh)
        assert _found(probe.loaded, SDKS) == []

        # the detached worker's command line is read without click either (cli/background.py)
        ids = ("--agent", first["agentId"], "--conversation", first["conversationId"])
        probe.run("_reflect-worker", *ids, "--trigger", "manual", cwd=project)
        assert _found(probe.loaded, ("click", *SDKS, *TERMINAL_UI)) == []
    assert "mini_letta.reflection.run.execute" in probe.loaded  # it did reflect


def test_commands_load_no_run_machinery_and_no_sdk(cli, home, project, tmp_path):
    elsewhere = tmp_path / "elsewhere"  # the real-model agents are not this project's
    elsewhere.mkdir()
    for model in ("openai/gpt-4o", "anthropic/claude-sonnet-4-5"):
        name = model.partition("/")[0]
        assert cli("agents", "create", "--name", name, "--model", model, cwd=elsewhere).code == 0
        assert cli("chat", "-p", "hi", "--agent", name, "--model", "mock", cwd=elsewhere).code == 0
    assert cli("chat", "-p", "hello").code == 0
    with ImportProbe(home.root, tmp_path / "probe") as probe:
        probe.run("status", cwd=project)
        assert _found(probe.loaded, NEVER) == []
        turn = ("mini_letta.loop", "mini_letta.llm.base", "mini_letta.tools.base")
        assert _found(probe.loaded, turn) == []

        # a chat line that is not plain goes through click, loading chat's command alone
        new = probe.run("chat", "--max-steps", "3", "-p", "hello again", cwd=project)
        assert _found(probe.loaded, NEVER) == []
        assert [m for m in new if m.startswith("mini_letta.cli.commands.")] == [
            "mini_letta.cli.commands.chat"
        ]

        # `context` only needs the model's window: neither SDK is imported nor a client made
        keys = {"OPENAI_API_KEY": "sk-test-dummy", "ANTHROPIC_API_KEY": "sk-ant-test-dummy"}
        for name in ("openai", "anthropic"):
            probe.run("context", "--agent", name, cwd=elsewhere, env=keys)
            assert _found(probe.loaded, SDKS) == [], name

        # configuring an MCP server needs no MCP SDK (test_mcp_servers_cli: without it, serving
        # and a turn with a server configured say how to install it)
        probe.run("mcp-servers", "add", "fs", "--", "fs-server", cwd=project)
        probe.run("mcp-servers", "list", cwd=project)
        assert _found(probe.loaded, ("mcp", "mcp_types")) == []
        assert _found(probe.loaded, ("mini_letta.mcp_client",)) == [
            "mini_letta.mcp_client",
            "mini_letta.mcp_client.config",
        ]
