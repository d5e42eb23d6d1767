"""`mini-letta acp` driven by the official SDK's client side over real stdio.

One agent process (`acp.spawn_agent_process`) speaks protocol version 1 to the test's editor
and serves every session the contracts need, as an editor keeps one agent for a workspace:
a turn with tool calls and their permission requests, a cancel mid-turn, two sessions of a
second project on one agent beside the terminal, a conversation loaded and replayed, the slash
commands, and last the editor leaving mid-turn. An ACP start-up costs about 2 s of CPU (the
SDK's pydantic models), so the contracts share it rather than start one each.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from support.cli import cli_env
from support.groups import ACP, NO_ACP
from support.scripted_server import Reply, ScriptedServer, openai_stream, openai_tool_call

# The SDK is imported by the tests that run (one worker, ACP group), not at collection.
pytestmark = [ACP, NO_ACP]

TIMEOUT = 30


def _block(text: str) -> Any:
    import acp

    return acp.text_block(text)


class RecordingClient:
    """An editor that records every update and answers permission requests in turn."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[tuple[Any, list[str]]] = []
        self.answers = list(answers or [])
        self.buffers: dict[str, str] = {}  # unsaved editor buffers by path
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

        self.permissions.append((tool_call, [option.option_id for option in options]))
        if not self.answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        answer = self.answers.pop(0)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        from acp.schema import ReadTextFileResponse

        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        from acp.schema import WriteTextFileResponse

        self.writes.append((path, content))
        Path(path).write_text(content, encoding="utf-8")  # as an editor saves what it wrote
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, session_id: str, since: int = 0) -> list[Any]:
        """The updates of one session, from the `since`-th update on."""
        return [u for sid, u in self.updates[since:] if sid == session_id]

    def kinds(self, session_id: str) -> list[str]:
        return [u.session_update for u in self.of(session_id)]

    def text(self, session_id: str, kind: str = "agent_message_chunk", since: int = 0) -> str:
        return "".join(
            u.content.text for u in self.of(session_id, since) if u.session_update == kind
        )


@asynccontextmanager
async def editor(
    client: RecordingClient, home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[Any]:
    """The agent process, initialized; stopped (stdin closed) on the way out."""
    from acp import PROTOCOL_VERSION, spawn_agent_process
    from acp.schema import ClientCapabilities, FileSystemCapabilities

    command = (sys.executable, "-m", "mini_letta", "acp", *args)
    spawned = spawn_agent_process(client, *command, env=cli_env(home, env), cwd=cwd)
    async with spawned as (conn, proc):
        fs = FileSystemCapabilities(read_text_file=True, write_text_file=True)
        capabilities = ClientCapabilities(fs=fs)
        reply = await asyncio.wait_for(
            conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities),
            TIMEOUT,
        )
        assert reply.protocol_version == 1
        assert reply.agent_capabilities.load_session is True
        yield conn
        proc.stdin.close()  # the editor goes away: the agent ends on its own, quietly
        code = await asyncio.wait_for(proc.wait(), TIMEOUT)
        errors = (await proc.stderr.read()).decode()
        assert code == 0 and "Traceback" not in errors, errors


async def _until(predicate: Any, what: str) -> None:
    for _ in range(int(TIMEOUT / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def _prompt(conn: Any, sid: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[_block(text)]), TIMEOUT)


def _messages(home: Path, conversation_id: str) -> list[dict[str, Any]]:
    (log,) = home.glob(f"agents/*/conversations/{conversation_id}/messages.jsonl")
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _record(home: Path, conversation_id: str) -> dict[str, Any]:
    (path,) = home.glob(f"agents/*/conversations/{conversation_id}/conversation.json")
    return json.loads(path.read_text(encoding="utf-8"))


async def _tool_calls_ask_permission_through_the_editor(
    conn: Any, client: RecordingClient, server: ScriptedServer, project: Path
) -> str:
    """A turn streams tool calls, asks before the edit and the command, edits through the
    editor, reads its unsaved buffer, and the session's mode changes what is asked."""
    import acp

    server.queue(
        openai_stream(
            "Writing it.",
            tool_calls=[openai_tool_call("c1", "Write", '{"path": "notes.txt", "content": "hi"}')],
        ),
        openai_stream("Done.", reasoning="The file is written; say so."),
        openai_stream(
            tool_calls=[
                openai_tool_call("c2", "Read", '{"path": "notes.txt"}'),
                openai_tool_call("c3", "Bash", '{"command": "rm notes.txt"}'),
            ]
        ),
        openai_stream("Left it."),
        openai_stream(tool_calls=[openai_tool_call("c4", "Bash", '{"command": "echo ran"}')]),
        openai_stream("Ran it."),
    )
    client.answers = ["allow-once", "reject"]
    session = await conn.new_session(cwd=str(project), mcp_servers=[])
    sid = session.session_id
    assert session.modes.current_mode_id == "default"
    done = await _prompt(conn, sid, "write notes.txt")
    assert done.stop_reason == "end_turn"
    (start,) = [u for u in client.of(sid) if u.session_update == "tool_call"]
    assert (start.kind, start.status, start.tool_call_id) == ("edit", "pending", "c1")
    assert "notes.txt" in start.title
    assert [loc.path for loc in start.locations] == [str(project / "notes.txt")]
    (result,) = [u for u in client.of(sid) if u.session_update == "tool_call_update"]
    assert result.status == "completed"
    assert client.text(sid) == "Writing it.Done."
    thought = client.text(sid, "agent_thought_chunk")
    assert thought == "The file is written; say so."  # the model's reasoning, streamed
    (asked, options) = client.permissions[0]
    assert asked.tool_call_id == "c1"
    assert options == ["allow-once", "allow-always", "reject"]
    assert (project / "notes.txt").read_text() == "hi"
    notes = str((project / "notes.txt").resolve())
    assert client.writes == [(notes, "hi")]  # through the editor
    client.buffers[notes] = "hi, unsaved"
    await _until(lambda: "available_commands_update" in client.kinds(sid), "the commands")

    rejected = await _prompt(conn, sid, "clean up")
    assert rejected.stop_reason == "end_turn"
    read = [u for u in client.of(sid) if getattr(u, "tool_call_id", "") == "c2"]
    assert "hi, unsaved" in read[-1].content[0].content.text  # the editor's buffer
    bash = [u for u in client.of(sid) if getattr(u, "tool_call_id", "") == "c3"]
    assert [(u.session_update, u.status) for u in bash] == [
        ("tool_call", "pending"),
        ("tool_call_update", "failed"),
    ]
    assert bash[0].kind == "execute"
    assert "declined" in bash[1].content[0].content.text
    assert (project / "notes.txt").exists()

    await conn.set_session_mode(session_id=sid, mode_id="bypassPermissions")
    ran = await _prompt(conn, sid, "run it")
    assert ran.stop_reason == "end_turn"
    echo = [u for u in client.of(sid) if getattr(u, "tool_call_id", "") == "c4"]
    assert echo[-1].status == "completed" and "ran" in echo[-1].content[0].content.text
    assert len(client.permissions) == 2  # the mode let it run without asking
    with pytest.raises(acp.RequestError):
        await conn.set_session_mode(session_id=sid, mode_id="yolo")
    commands = [u for u in client.of(sid) if u.session_update == "available_commands_update"]
    names = {command.name for command in commands[0].available_commands}
    assert {"memory", "search", "context", "reflect", "status"} <= names
    return sid


async def _cancel_mid_turn_keeps_what_was_said(
    conn: Any, client: RecordingClient, server: ScriptedServer, project: Path, home: Path
) -> str:
    """Malformed requests are one-line errors; a cancel stops a turn as Ctrl-C does and keeps
    what was shown; the session goes on."""
    import acp

    halting = openai_stream("Half an answer, and the rest never comes").sse
    server.queue(
        Reply(sse=halting, pause_after=3, pause=60),  # "Half an " streams, then it hangs
        openai_stream("Back again."),
    )
    sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
    for bad in (
        conn.new_session(cwd="relative/dir", mcp_servers=[]),
        conn.prompt(session_id="conv-nope", prompt=[_block("hi")]),
        conn.prompt(session_id=sid, prompt=[_block("   ")]),
    ):
        with pytest.raises(acp.RequestError) as refused:
            await asyncio.wait_for(bad, TIMEOUT)
        assert refused.value.code == -32602 and "\n" not in str(refused.value)
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[_block("keep me")]))
    await _until(lambda: client.text(sid) == "Half an ", "the answer to begin")
    await conn.cancel(session_id=sid)
    assert (await asyncio.wait_for(turn, TIMEOUT)).stop_reason == "cancelled"
    assert _record(home, sid)["lastTurn"]["stopReason"] == "interrupted"
    assert (await _prompt(conn, sid, "again")).stop_reason == "end_turn"
    return sid


async def _two_sessions_share_the_agent_beside_the_terminal(
    conn: Any, client: RecordingClient, server: ScriptedServer, cli: Any, project: Path
) -> tuple[str, str, str]:
    """Two sessions of one project (one in a subfolder) are conversations of its one agent,
    whose foreground reflection after every turn merges and is told in the session. The agent
    is the mock's, the sessions talk to the server's `--model`."""
    server.queue(openai_stream("Tabs it is."), openai_stream("pnpm, noted."))
    one = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
    (project / "src").mkdir()  # a session in a subfolder is the project's too
    two = (await conn.new_session(cwd=str(project / "src"), mcp_servers=[])).session_id
    for sid, text in ((one, "I prefer tabs for indentation"), (two, "I use pnpm")):
        assert (await _prompt(conn, sid, text)).stop_reason == "end_turn"
    # the terminal on the same agent meanwhile
    terminal = cli("chat", "-p", "from the terminal", "--output-format", "json", cwd=project)
    assert terminal.code == 0, terminal.stderr
    assert (await _prompt(conn, one, "/memory")).stop_reason == "end_turn"
    assert "system/" in client.text(one)
    assert "☾ reflection" in client.text(one) and "merged" in client.text(one)
    assert one != two and client.text(two).startswith("pnpm, noted.")  # the --model answered
    return one, two, json.loads(terminal.stdout)["conversationId"]


async def _a_loaded_session_is_replayed(
    conn: Any, client: RecordingClient, project: Path, home: Path, sid: str, first: bool
) -> None:
    """`session/load` replays the conversation from disk as updates (`first`: a conversation
    this process never opened, as after an editor's restart), and what reflection learned is
    in the memory the loaded session reads; a wrong id is one line."""
    import acp

    mark = len(client.updates)
    await asyncio.wait_for(
        conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[]), TIMEOUT
    )
    said = _messages(home, sid)
    users = "".join(m["content"] for m in said if m["role"] == "user")
    assistants = "".join(m["content"] for m in said if m["role"] == "assistant")
    assert client.text(sid, "user_message_chunk", since=mark) == users
    assert client.text(sid, since=mark) == assistants  # a command's output is not in the log
    if first:
        mark = len(client.updates)
        human = conn.prompt(session_id=sid, prompt=[_block("/memory show system/human.md")])
        await asyncio.wait_for(human, TIMEOUT)
        assert "tabs" in client.text(sid, since=mark)
        for wrong in ("conv-nope", "../" + sid):
            missing = conn.load_session(cwd=str(project), session_id=wrong, mcp_servers=[])
            with pytest.raises(acp.RequestError) as failed:
                await asyncio.wait_for(missing, TIMEOUT)
            assert "\n" not in str(failed.value)


def test_one_editor_process_serves_turns_cancels_sessions_and_loads(
    cli, scripted_server, home, project, project_agent, tmp_path
):
    """The server's `--model` (openai/x, on the scripted server) answers every session. Project
    `tools`: tool calls and permissions, a cancel. Project `project` (a mock agent reflecting
    after every turn): two sessions and the terminal on one agent, a conversation loaded. Then
    the editor leaves mid-turn."""
    tools = tmp_path / "tools"
    tools.mkdir()
    # the project's agent (project_agent) reflects after every turn, in the foreground
    cli("sleeptime", "--trigger", "step-count", "--steps", "1")
    env = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url}
    client = RecordingClient()

    async def drive() -> tuple[str, str, Any]:
        async with editor(client, home.root, project, "--model", "openai/x", env=env) as conn:
            await _tool_calls_ask_permission_through_the_editor(
                conn, client, scripted_server, tools
            )
            cancelled = await _cancel_mid_turn_keeps_what_was_said(
                conn, client, scripted_server, tools, home.root
            )
            one, two, terminal = await _two_sessions_share_the_agent_beside_the_terminal(
                conn, client, scripted_server, cli, project
            )
            agents = {p.parent.name: p.parent.parent.parent.name for p in _conversations(home)}
            assert agents[one] == agents[two] == agents[terminal] != agents[cancelled]
            assert len(list(home.root.glob("agents/*/agent.json"))) == 2  # one per project
            await _a_loaded_session_is_replayed(conn, client, project, home.root, terminal, True)
            await _a_loaded_session_is_replayed(conn, client, project, home.root, one, False)
            # the editor goes away while a turn waits for the model: it stops as at Ctrl-C
            scripted_server.queue(Reply(sse=openai_stream("too late").sse, delay=60))
            left = asyncio.ensure_future(
                conn.prompt(session_id=cancelled, prompt=[_block("left mid-turn")])
            )
            await _until(lambda: _asked(scripted_server, "left mid-turn"), "the last model call")
            return cancelled, one, left

    cancelled, one, left = asyncio.run(drive())
    assert isinstance(left.exception(), ConnectionError)  # the editor left before the answer
    said = [(m["role"], m["content"], m.get("stopReason")) for m in _messages(home.root, cancelled)]
    assert said == [
        ("user", "keep me", None),
        ("assistant", "Half an ", "interrupted"),  # what was shown is kept
        ("user", "again", None),
        ("assistant", "Back again.", "end_turn"),
        ("user", "left mid-turn", None),
    ]
    assert _record(home.root, cancelled)["lastTurn"]["stopReason"] == "interrupted"
    conversations = "".join(p.read_text(encoding="utf-8") for p in _conversations(home))
    assert "say so" not in conversations  # reasoning is not kept
    assert "tabs" in _messages(home.root, one)[0]["content"]


def _conversations(home: Any) -> list[Path]:
    return list(home.root.glob("agents/*/conversations/*/messages.jsonl"))


def _asked(server: ScriptedServer, text: str) -> bool:
    """The model was called with `text` as the last user message."""
    return any(text in json.dumps(r.body.get("messages", [])[-1:]) for r in server.requests)


def test_an_unknown_agent_is_one_line_before_serving(cli):
    result = cli("acp", "--agent", "nobody")
    assert result.code == 1 and result.stdout == ""
    assert result.stderr.startswith("mini-letta: ") and result.stderr.count("\n") == 1
