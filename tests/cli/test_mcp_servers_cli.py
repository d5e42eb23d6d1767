"""`mini-letta mcp-servers list|add|remove|approve`, the one-line hint when the `mcp` extra is
missing (shown by a process whose imports cannot find `mcp`: a sitecustomize blocker), and
turns that reach a configured server (the scripted stdio one, support/mcp_servers.py)."""

from __future__ import annotations

import json
import sys
import textwrap

from support.cli import SRC
from support.groups import MCP, NO_MCP
from support.mcp_servers import STDIO_SERVER

BLOCKER = textwrap.dedent(
    """
    import sys

    class _NoMcp:
        def find_spec(self, name, path=None, target=None):
            if name == "mcp" or name.startswith(("mcp.", "mcp_types")):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _NoMcp())
    """
)


def test_add_list_remove_in_both_scopes(cli, home, project):
    added = cli(
        "mcp-servers", "add", "-e", "LEVEL=debug", "fs", "--", "npx", "-y", "server-fs", "."
    )
    assert added.code == 0 and f"to {project / '.mcp.json'}" in added.stdout
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["fs"] == {
        "command": "npx", "args": ["-y", "server-fs", "."], "env": {"LEVEL": "debug"}
    }  # fmt: skip
    web = cli("mcp-servers", "add", "-s", "user", "-t", "http", "-H", "X-Key: ${KEY}", "web",
              "https://example.com/mcp")  # fmt: skip
    assert web.code == 0, web.stderr
    listed = cli("mcp-servers", "list")
    assert listed.stdout.splitlines() == [
        "fs  [project]  stdio  npx -y server-fs .",
        f"problem: MCP server 'web' in {home.settings_file}: headers.X-Key: ${{KEY}} is not set "
        "(or write ${KEY:-default})",
    ]
    as_json = json.loads(cli("mcp-servers", "list", "--json", env={"KEY": "k"}).stdout)
    assert as_json["servers"][1]["target"] == "https://example.com/mcp"
    assert [(s["name"], s["approved"]) for s in as_json["servers"]] == [("fs", True), ("web", True)]
    assert cli("mcp-servers", "remove", "fs").code == 0
    assert "mcpServers" in json.loads((project / ".mcp.json").read_text())
    assert cli("mcp-servers", "remove", "-s", "user", "web").code == 0
    gone = cli("mcp-servers", "remove", "web")
    assert (
        gone.code == 1
        and gone.stderr.count("\n") == 1
        and "no MCP server named 'web'" in gone.stderr
    )


def test_a_cloned_projects_servers_wait_for_approval(cli, project):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "run-me"}}}))
    listed = cli("mcp-servers", "list").stdout
    assert listed == "x  [project]  stdio  run-me  (not approved here: mcp-servers approve x)\n"
    assert cli("mcp-servers", "approve", "x").code == 0
    assert cli("mcp-servers", "list").stdout == "x  [project]  stdio  run-me\n"
    assert cli("mcp-servers", "approve", "nope").code == 1


def test_bad_values_are_usage_errors(cli):
    assert cli("mcp-servers", "add", "bad name", "--", "x").code == 2
    assert cli("mcp-servers", "add", "-t", "http", "w", "http://a", "http://b").code == 2
    assert cli("mcp-servers", "add", "-e", "NOEQUALS", "w", "--", "x").code == 2
    assert cli("mcp-servers", "add", "-t", "http", "w", "ftp://a").code == 2


def test_without_the_mcp_extra_serving_and_configured_servers_say_how_to_install_it(
    cli, cli_process, home, project, tmp_path
):
    blocker = tmp_path / "no-mcp"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER)
    env = {"PYTHONPATH": f"{blocker}:{SRC}"}
    # With nothing configured a turn needs no MCP SDK: test_lazy_imports_cli checks that a plain
    # turn loads neither `mcp`, `mcp_types` nor mini_letta.mcp_client (which asks for the SDK).
    served = cli_process("mcp", env=env)
    assert served.code == 1
    assert served.stderr == (
        "mini-letta: `mini-letta mcp` needs the MCP SDK, which is not installed: "
        "pip install 'mini-letta[mcp]' (pipx: pipx install --force 'mini-letta[mcp]')\n"
    )
    # configuring one needs no SDK either: test_lazy_imports_cli sees `mcp-servers add` and
    # `list` load none of it
    assert cli("mcp-servers", "add", "fs", "--", "fs-server").code == 0
    chat = cli_process("chat", "-p", "hello", env=env)
    assert chat.code == 1 and chat.stderr.count("\n") == 1
    assert "an MCP server in your configuration needs the MCP SDK" in chat.stderr


@MCP  # the turn loads the MCP SDK in this process
@NO_MCP
def test_a_headless_turn_lists_mcp_tools_refuses_unapproved_calls_and_warns_in_one_line(
    cli, scripted_server, project
):
    from support.scripted_server import openai_stream, openai_tool_call

    assert cli("mcp-servers", "add", "fx", "--", sys.executable, str(STDIO_SERVER)).code == 0
    assert cli("mcp-servers", "add", "-s", "user", "gone", "--", "/nonexistent/mcp").code == 0
    call = openai_tool_call("c1", "mcp__fx__echo", '{"text": "hi"}')
    scripted_server.queue(openai_stream("", [call]), openai_stream("Not allowed, then."))
    env = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url + "/v1"}
    result = cli("chat", "-p", "echo hi", "--model", "openai/gpt-4o-mini",
                 "--output-format", "stream-json", env=env)  # fmt: skip
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert {"mcp__fx__echo", "mcp__fx__pid", "Read"} <= set(events[0]["tools"])
    refusal = json.dumps(scripted_server.requests[1].body["messages"][-1], ensure_ascii=False)
    assert "needs approval and this run is headless" in refusal
    assert "--allowed-tools mcp__fx__echo" in refusal
    assert result.stderr == (
        "mini-letta: warning: MCP server 'gone' did not start (command not found "
        "(/nonexistent/mcp)); going on without it\n"
    )


@MCP  # the turn loads the MCP SDK in this process
@NO_MCP
def test_the_interactive_session_starts_its_servers_once_across_new_conversations(
    cli, scripted_server, project, tmp_path
):
    from support.scripted_server import openai_stream, openai_tool_call

    starts = tmp_path / "starts.txt"
    added = cli("mcp-servers", "add", "-e", f"FIXTURE_STARTS={starts}", "fx", "--",
                sys.executable, str(STDIO_SERVER))  # fmt: skip
    assert added.code == 0
    for n in (1, 2):
        call = openai_tool_call(f"c{n}", "mcp__fx__pid", "{}")
        scripted_server.queue(openai_stream("", [call]), openai_stream(f"Answer {n}."))
    env = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url + "/v1"}
    assert cli("agents", "create", "--name", "a", "--model", "openai/gpt-4o-mini").code == 0
    session = cli(stdin="first\ny\n/new\nsecond\ny\n", env=env)
    assert session.code == 0, session.stderr
    assert "Answer 1." in session.stdout and "Answer 2." in session.stdout
    assert "allow pid on MCP server fx: {}" in session.stderr
    assert len(starts.read_text().splitlines()) == 1
