"""`mini-letta acp` driven by the official SDK's client side over real stdio.

Each test spawns the agent as a subprocess (`acp.spawn_agent_process`) and speaks protocol
version 1 to it: a turn with a tool call and its permission request, a cancel mid-turn, a
conversation loaded and replayed in a second process, two sessions on one agent beside the
terminal, and the slash commands.
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
from support.scripted_server import Reply, openai_stream, openai_tool_call

acp = pytest.importorskip("acp")
from acp import PROTOCOL_VERSION, spawn_agent_process  # noqa: E402
from acp.schema import (  # noqa: E402
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

TIMEOUT = 30


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
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, [option.option_id for option in options]))
        if not self.answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        answer = self.answers.pop(0)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        self.writes.append((path, content))
        Path(path).write_text(content, encoding="utf-8")  # as an editor saves what it wrote
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    def kinds(self, session_id: str) -> list[str]:
        return [u.session_update for sid, u in self.updates if sid == session_id]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        return "".join(
            u.content.text
            for sid, u in self.updates
            if sid == session_id and u.session_update == kind
        )


@asynccontextmanager
async def editor(
    client: RecordingClient, home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[Any]:
    """The agent process, initialized; stopped (stdin closed) on the way out."""
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


def _messages(home: Path, conversation_id: str) -> list[dict[str, Any]]:
    (log,) = home.glob(f"agents/*/conversations/{conversation_id}/messages.jsonl")
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _record(home: Path, conversation_id: str) -> dict[str, Any]:
    (path,) = home.glob(f"agents/*/conversations/{conversation_id}/conversation.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_prompt_streams_a_tool_call_asks_permission_and_ends_the_turn(
    scripted_server, home, project
):
    scripted_server.queue(
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
    env = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url}
    client = RecordingClient(answers=["allow-once", "reject"])

    async def drive() -> None:
        async with editor(client, home.root, project, "--model", "openai/x", env=env) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            sid = session.session_id
            assert session.modes.current_mode_id == "default"
            done = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("write notes.txt")]), TIMEOUT
            )
            assert done.stop_reason == "end_turn"
            (start,) = [u for s, u in client.updates if u.session_update == "tool_call"]
            assert (start.kind, start.status, start.tool_call_id) == ("edit", "pending", "c1")
            assert "notes.txt" in start.title
            assert [loc.path for loc in start.locations] == [str(project / "notes.txt")]
            (result,) = [u for s, u in client.updates if u.session_update == "tool_call_update"]
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

            rejected = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("clean up")]), TIMEOUT
            )
            assert rejected.stop_reason == "end_turn"
            read = [u for s, u in client.updates if getattr(u, "tool_call_id", "") == "c2"]
            assert "hi, unsaved" in read[-1].content[0].content.text  # the editor's buffer
            bash = [u for s, u in client.updates if getattr(u, "tool_call_id", "") == "c3"]
            assert [(u.session_update, u.status) for u in bash] == [
                ("tool_call", "pending"),
                ("tool_call_update", "failed"),
            ]
            assert bash[0].kind == "execute"
            assert "declined" in bash[1].content[0].content.text
            assert (project / "notes.txt").exists()

            await conn.set_session_mode(session_id=sid, mode_id="bypassPermissions")
            ran = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("run it")]), TIMEOUT
            )
            assert ran.stop_reason == "end_turn"
            echo = [u for s, u in client.updates if getattr(u, "tool_call_id", "") == "c4"]
            assert echo[-1].status == "completed" and "ran" in echo[-1].content[0].content.text
            assert len(client.permissions) == 2  # the mode let it run without asking
            with pytest.raises(acp.RequestError):
                await conn.set_session_mode(session_id=sid, mode_id="yolo")

    asyncio.run(drive())
    (conversation,) = home.root.glob("agents/*/conversations/*/messages.jsonl")
    assert "say so" not in conversation.read_text(encoding="utf-8")  # reasoning is not kept
    commands = [u for _, u in client.updates if u.session_update == "available_commands_update"]
    names = {command.name for command in commands[0].available_commands}
    assert {"memory", "search", "context", "reflect", "status"} <= names


def test_cancel_mid_turn_stops_it_and_keeps_what_was_said(scripted_server, home, project):
    halting = openai_stream("Half an answer, and the rest never comes").sse
    scripted_server.queue(
        Reply(sse=halting, pause_after=3, pause=60),  # "Half an " streams, then it hangs
        openai_stream("Back again."),
        Reply(sse=openai_stream("too late").sse, delay=60),
    )
    env = {"OPENAI_API_KEY": "sk-test-dummy", "OPENAI_BASE_URL": scripted_server.url}
    client = RecordingClient()

    async def drive() -> tuple[str, Any]:
        async with editor(client, home.root, project, "--model", "openai/x", env=env) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            for bad in (
                conn.new_session(cwd="relative/dir", mcp_servers=[]),
                conn.prompt(session_id="conv-nope", prompt=[acp.text_block("hi")]),
                conn.prompt(session_id=sid, prompt=[acp.text_block("   ")]),
            ):
                with pytest.raises(acp.RequestError) as refused:
                    await asyncio.wait_for(bad, TIMEOUT)
                assert refused.value.code == -32602 and "\n" not in str(refused.value)
            turn = asyncio.ensure_future(
                conn.prompt(session_id=sid, prompt=[acp.text_block("keep me")])
            )
            await _until(lambda: client.text(sid) == "Half an ", "the answer to begin")
            await conn.cancel(session_id=sid)
            assert (await asyncio.wait_for(turn, TIMEOUT)).stop_reason == "cancelled"
            assert _record(home.root, sid)["lastTurn"]["stopReason"] == "interrupted"
            again = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[acp.text_block("again")]), TIMEOUT
            )
            assert again.stop_reason == "end_turn"
            # the editor goes away while a turn waits for the model: it stops as at Ctrl-C
            left = asyncio.ensure_future(
                conn.prompt(session_id=sid, prompt=[acp.text_block("left mid-turn")])
            )
            await _until(lambda: len(scripted_server.requests) == 3, "the third model call")
            return sid, left

    sid, left = asyncio.run(drive())
    assert isinstance(left.exception(), ConnectionError)  # the editor left before the answer
    said = [(m["role"], m["content"], m.get("stopReason")) for m in _messages(home.root, sid)]
    assert said == [
        ("user", "keep me", None),
        ("assistant", "Half an ", "interrupted"),  # what was shown is kept
        ("user", "again", None),
        ("assistant", "Back again.", "end_turn"),
        ("user", "left mid-turn", None),
    ]
    assert _record(home.root, sid)["lastTurn"]["stopReason"] == "interrupted"


def test_sessions_share_one_agent_and_a_loaded_one_is_replayed(cli, home, project):
    cli("agents", "create")  # reflection after every turn, in the foreground, as configured
    cli("sleeptime", "--trigger", "step-count", "--steps", "1")
    first = RecordingClient()

    async def two_sessions() -> tuple[str, str]:
        async with editor(first, home.root, project, "--model", "mock") as conn:
            one = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            (project / "src").mkdir()  # a session in a subfolder is the project's too
            two = (await conn.new_session(cwd=str(project / "src"), mcp_servers=[])).session_id
            for sid, text in ((one, "I prefer tabs for indentation"), (two, "I use pnpm")):
                reply = await asyncio.wait_for(
                    conn.prompt(session_id=sid, prompt=[acp.text_block(text)]), TIMEOUT
                )
                assert reply.stop_reason == "end_turn"
            # the terminal on the same agent meanwhile
            terminal = cli("chat", "-p", "from the terminal", "--model", "mock")
            assert terminal.code == 0, terminal.stderr
            listing = await asyncio.wait_for(
                conn.prompt(session_id=one, prompt=[acp.text_block("/memory")]), TIMEOUT
            )
            assert listing.stop_reason == "end_turn"
            assert "system/" in first.text(one)
            assert "☾ reflection" in first.text(one) and "merged" in first.text(one)
            return one, two

    one, two = asyncio.run(two_sessions())
    assert one != two
    assert len(list(home.root.glob("agents/*/agent.json"))) == 1
    assert first.text(two)  # the mock answered in the second session too

    second = RecordingClient()

    async def load() -> None:
        async with editor(second, home.root, project, "--model", "mock") as conn:
            await asyncio.wait_for(
                conn.load_session(cwd=str(project), session_id=one, mcp_servers=[]), TIMEOUT
            )
            assert second.text(one, "user_message_chunk") == "I prefer tabs for indentation"
            said = [m["content"] for m in _messages(home.root, one) if m["role"] == "assistant"]
            assert second.text(one) == "".join(said)  # a command's output is not in the log
            assert "agent_message_chunk" in second.kinds(one)
            # what the first editor session's reflection learned, a new process remembers
            human = conn.prompt(
                session_id=one, prompt=[acp.text_block("/memory show system/human.md")]
            )
            await asyncio.wait_for(human, TIMEOUT)
            assert "tabs" in second.text(one).rpartition("".join(said))[2]
            for wrong in ("conv-nope", "../" + one):
                missing = conn.load_session(cwd=str(project), session_id=wrong, mcp_servers=[])
                with pytest.raises(acp.RequestError) as failed:
                    await asyncio.wait_for(missing, TIMEOUT)
                assert "\n" not in str(failed.value)

    asyncio.run(load())


def test_an_unknown_agent_is_one_line_before_serving(cli):
    result = cli("acp", "--agent", "nobody")
    assert result.code == 1 and result.stdout == ""
    assert result.stderr.startswith("mini-letta: ") and result.stderr.count("\n") == 1
