"""The ACP agent: editor sessions are conversations of the project's agent, run by `Session`.

`session/new` opens a new conversation of the agent of the project at the session's `cwd`
(created if the project has none), `session/load` an existing one by id (the ACP session id is
the conversation id) after replaying it as updates. `session/prompt` runs one turn through
the core's `Session` (so the post-turn reflection and memory sync run as in the terminal) on
the main thread (runner.py), streaming its events as updates; `session/cancel` is Ctrl-C. A
prompt that is a slash command runs it instead (commands.py). The session's ACP mode is its
permission mode. The MCP servers the editor sends join the configured ones for that session
(mcp_servers.py). Errors are one-line JSON-RPC errors, never a traceback.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mini_letta import log
from mini_letta.acp.bridge import Bridge, LateFiles
from mini_letta.acp.commands import CommandRunner, Target, available_commands, is_command
from mini_letta.acp.commands import run_command as run_slash_command
from mini_letta.acp.mcp_servers import TRANSPORTS, editor_server_specs, editor_session_servers
from mini_letta.acp.permission import build_editor_approver, mode_state
from mini_letta.acp.runner import Job, TurnRunner
from mini_letta.acp.updates import agent_text, replay_updates, updates_for_event
from mini_letta.conversations.messages import ToolCall
from mini_letta.errors import InvalidValueError, MiniLettaError
from mini_letta.loop.events import TurnResult
from mini_letta.loop.setup import TurnOptions
from mini_letta.session import AfterTurn, Session, Spawner
from mini_letta.structs import Struct, replace
from mini_letta.tools.base import Approver, EditorFiles
from mini_letta.tools.permissions import PERMISSION_MODES, PermissionMode
from mini_letta.workspace import World

if TYPE_CHECKING:
    from acp import Client
    from acp.schema import (
        InitializeResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
        SetSessionModeResponse,
    )

    from mini_letta.mcp_client.config import ServerSpec
    from mini_letta.mcp_client.servers import McpServers
    from mini_letta.reflection.api import PostTurnOutcome, ReflectionOutcome

OutcomeText = Callable[["PostTurnOutcome | ReflectionOutcome"], str]

# our stop reasons -> ACP's (an `error` turn ends normally, its failure told as a message)
STOP_REASONS = {"max_steps": "max_turn_requests", "max_tokens": "max_tokens"}


class Frontend(Struct, frozen=True):
    """What the front end starting the server gives it (the CLI's are cli/commands/acp.py)."""

    world_for: Callable[[Path], World]  # the world of an editor session's cwd
    describe_outcome: OutcomeText  # a reflection outcome as one line
    run_command: CommandRunner  # a CLI command's output, for the slash commands
    spawner_for: Callable[[World], Spawner] | None = None  # detached reflection and sync


class ServerOptions(Struct, frozen=True):
    agent: str | None = None  # None: the project's agent
    model: str | None = None
    permission_mode: PermissionMode = "default"


class EditorSession:
    """One ACP session: its conversation's `Session`, its mode, how it asks and tells, and the
    MCP servers it was opened with when the editor sent some (closed with it)."""

    def __init__(self, world: World, mode: PermissionMode) -> None:
        self.world = world
        self.mode = mode
        self.session: Session | None = None
        self.mcp: McpServers | None = None
        self.approver: Approver | None = None
        self.files: EditorFiles | None = None  # known once the session has its id
        self.tell: Callable[[str], None] = lambda text: None

    @property
    def id(self) -> str:
        assert self.session is not None
        return self.session.store.conversation_id

    def approve(self, call: ToolCall, summary: str) -> bool:
        return self.approver is not None and self.approver(call, summary)

    def close(self) -> None:
        """Release the model client, then stop the session's MCP servers (on the main thread)."""
        try:
            if self.session is not None:
                self.session.close()
        finally:
            if self.mcp is not None:
                self.mcp.close()


class MiniLettaAgent:
    """The `acp.Agent` the SDK's connection calls; the work itself runs on the runner."""

    def __init__(self, runner: TurnRunner, frontend: Frontend, options: ServerOptions) -> None:
        self.runner = runner
        self.frontend = frontend
        self.options = options
        self.sessions: dict[str, EditorSession] = {}
        self._bridge: Bridge | None = None
        self.fs = (False, False)  # the client reads, writes text files for us

    def on_connect(self, conn: Client) -> None:
        self._bridge = Bridge(asyncio.get_running_loop(), conn)

    @property
    def bridge(self) -> Bridge:
        assert self._bridge is not None, "on_connect runs before any request"
        return self._bridge

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:  # fmt: skip
        from acp import PROTOCOL_VERSION
        from acp.schema import (
            AgentCapabilities,
            Implementation,
            InitializeResponse,
            McpCapabilities,
            PromptCapabilities,
        )

        from mini_letta import __version__

        fs = getattr(client_capabilities, "fs", None)
        self.fs = (
            bool(getattr(fs, "read_text_file", False)),
            bool(getattr(fs, "write_text_file", False)),
        )
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http="http" in TRANSPORTS, sse=False),
            ),
            agent_info=Implementation(name="mini-letta", title="mini-letta", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None  # the model's key comes from the environment, as in the terminal

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        from acp.schema import NewSessionResponse

        session = await self._open(cwd, None, mcp_servers)
        self._announce_commands(session.id)
        return NewSessionResponse(session_id=session.id, modes=mode_state(session.mode))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        from acp.schema import LoadSessionResponse

        if not is_conversation_name(session_id):  # it names a folder under the agent's
            raise _invalid(f"{session_id[:80]!r} is not a session id (a conversation id)")
        session = await self._open(cwd, session_id, mcp_servers)
        self._announce_commands(session.id)
        return LoadSessionResponse(modes=mode_state(session.mode))

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        from acp.schema import SetSessionModeResponse

        session = self._session(session_id)
        if mode_id not in PERMISSION_MODES:
            raise _invalid(f"unknown mode {mode_id!r} (modes: {', '.join(PERMISSION_MODES)})")
        await self._call(lambda job: _set_mode(session, mode_id), None)
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        from acp.schema import PromptResponse

        session = self._session(session_id)
        text = prompt_text(prompt)
        stop = await self._call(lambda job: self._run_prompt(job, session, text), session_id)
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.runner.interrupt(session_id)

    def close_sessions(self) -> None:
        """Release every session's model client and MCP servers (on the main thread, after the
        last job)."""
        for session in self.sessions.values():
            session.close()
        self.sessions.clear()

    # -- work on the main thread ---------------------------------------------------------

    async def _open(self, cwd: str, conversation: str | None, servers: Any) -> EditorSession:
        folder = Path(cwd)
        if not folder.is_absolute() or not folder.is_dir():
            raise _invalid(f"cwd must be an absolute path to a folder, got {cwd!r}")
        specs, problems = editor_server_specs(servers or [])
        for problem in problems:
            log.warning("%s", problem)

        def work(job: Job) -> EditorSession:
            opened = self.open_here(folder, conversation, specs)
            if conversation is not None:
                session = opened.session
                assert session is not None
                memory_dir = opened.world.home.memory_dir(session.agent.id)
                for update in replay_updates(session.store, opened.world.cwd, memory_dir):
                    self.bridge.send(opened.id, update)
            return opened

        opened: EditorSession = await self._call(work, None)
        previous = self.sessions.get(opened.id)
        self.sessions[opened.id] = opened
        if previous is not None:  # the conversation loaded again: one Session for it
            await self._call(lambda job: previous.close(), None)
        return opened

    def open_here(
        self, folder: Path, conversation: str | None, servers: Sequence[ServerSpec] = ()
    ) -> EditorSession:
        """A session of the conversation (None: a new one) of the project at `folder`, with
        the editor's MCP servers beside the configured ones; runs on the main thread."""
        world = self.frontend.world_for(folder)
        opened = EditorSession(world, self.options.permission_mode)
        spawn = self.frontend.spawner_for(world) if self.frontend.spawner_for else None
        files = LateFiles(lambda: opened.files)
        if servers:
            warn = partial(log.warning, "%s")
            opened.mcp = editor_session_servers(world, servers, warn)
        try:
            opened.session = Session(
                world,
                agent=self.options.agent,
                conversation=conversation,
                new=conversation is None,
                options=TurnOptions(
                    model=self.options.model,
                    permission_mode=opened.mode,
                    approve=opened.approve,
                    editor_files=files.seam(*self.fs),
                ),
                spawn=spawn,
                on_reflection=lambda outcome: opened.tell(
                    "\n\n" + self.frontend.describe_outcome(outcome).strip()
                ),
                mcp=opened.mcp,
            )
        except BaseException:
            opened.close()
            raise
        session_id = opened.id
        memory_dir = world.home.memory_dir(opened.session.agent.id)
        opened.approver = build_editor_approver(
            lambda update, options: self.bridge.ask(session_id, update, options),
            world.cwd,
            memory_dir,
        )
        opened.tell = lambda text: self.bridge.send(session_id, agent_text(text))
        opened.files = self.bridge.editor_files(session_id, *self.fs)
        return opened

    def _run_prompt(self, job: Job, opened: EditorSession, text: str) -> str:
        session = opened.session
        assert session is not None
        failure = session.deliver_waiting()  # background reflections' outcomes, as messages
        if failure is not None:
            opened.tell(f"mini-letta: memory sync failed: {failure} (retried at the next sync)\n")
        if is_command(text):
            return self._run_command(job, opened, text)
        memory_dir = opened.world.home.memory_dir(session.agent.id)
        events = session.turn(text, attach=False)  # the editor sends its files as resources
        result: TurnResult | None = None
        self.runner.allow_interrupts(job, True)
        try:
            if job.cancelled:
                raise KeyboardInterrupt
            for event in events:
                if isinstance(event, TurnResult):
                    self.runner.allow_interrupts(job, False)  # the turn is recorded
                    result = event
                if isinstance(event, AfterTurn):
                    continue
                for update in updates_for_event(event, opened.world.cwd, memory_dir):
                    self.bridge.send(opened.id, update)
        except KeyboardInterrupt:
            self.runner.allow_interrupts(job, False)
            if result is None:  # it landed between two events: the turn still records it
                with suppress(KeyboardInterrupt, StopIteration):
                    events.throw(KeyboardInterrupt())
                return "cancelled"
        assert result is not None
        if result.stop_reason == "error":
            opened.tell(f"\n\nmini-letta: the turn failed: {result.error}")
        return STOP_REASONS.get(result.stop_reason, "end_turn")

    def _run_command(self, job: Job, opened: EditorSession, text: str) -> str:
        """A slash command; a stop interrupts it as Ctrl-C does in the terminal's session."""
        session = opened.session
        assert session is not None
        target = Target(session.agent.id, session.store.conversation_id)
        self.runner.allow_interrupts(job, True)
        try:
            if job.cancelled:
                raise KeyboardInterrupt
            shown = run_slash_command(text, target, opened.world, self.frontend.run_command)
            self.runner.allow_interrupts(job, False)
        except KeyboardInterrupt:
            self.runner.allow_interrupts(job, False)
            return "cancelled"
        opened.tell(shown)
        return "end_turn"

    # -- helpers ---------------------------------------------------------------------------

    def _session(self, session_id: str) -> EditorSession:
        found = self.sessions.get(session_id)
        if found is None:
            raise _invalid(f"no session {session_id!r} (start one with session/new)")
        return found

    async def _call(self, work: Callable[[Job], Any], owner: str | None) -> Any:
        """Run `work` on the main thread; a failure becomes a one-line JSON-RPC error."""
        from acp import RequestError

        try:
            return await asyncio.wrap_future(self.runner.submit(work, owner))
        except RequestError:
            raise
        except InvalidValueError as exc:
            raise _invalid(str(exc)) from None
        except MiniLettaError as exc:
            raise RequestError(-32603, f"mini-letta: {exc}") from None
        except Exception as exc:  # a bug of ours: one line, as the CLI says it
            raise RequestError(-32603, f"mini-letta: internal error: {exc!r}") from None

    def _announce_commands(self, session_id: str) -> None:
        """Send the command list just after the response that names the session."""
        from acp.helpers import update_available_commands

        update = update_available_commands(available_commands())

        async def announce() -> None:
            await asyncio.sleep(0)
            await self.bridge.client.session_update(session_id=session_id, update=update)

        task = asyncio.get_running_loop().create_task(announce())
        self._announcing = task  # kept until done, so it is not collected mid-flight


def _set_mode(opened: EditorSession, mode: PermissionMode) -> None:
    session = opened.session
    assert session is not None
    opened.mode = mode
    context = replace(session.setup.tool_context, permission_mode=mode)
    session.setup = replace(session.setup, tool_context=context)


def is_conversation_name(text: str) -> bool:
    """One plain path component: a session id never reaches outside the agent's folder."""
    return (
        0 < len(text) <= 200
        and text not in (".", "..")
        and not any(c in text for c in "/\\\x00")
        and text.strip() == text
    )


def _invalid(message: str) -> Exception:
    from acp import RequestError

    return RequestError(-32602, message)


def prompt_text(blocks: list[Any]) -> str:
    """The user's message: its text, then each embedded file as a fenced block naming it and
    each linked one by its URI (images and audio are not offered in `initialize`)."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                parts.append(f"\n{resource.uri}:\n```\n{text}\n```")
        elif kind == "resource_link":
            parts.append(f"@{block.uri}")
    return "\n".join(parts)


def serve(frontend: Frontend, options: ServerOptions) -> None:
    """Speak ACP on this process's stdin and stdout until the client closes stdin.

    The protocol's event loop runs in a thread; this (main) thread runs the jobs."""
    runner = TurnRunner()
    agent = MiniLettaAgent(runner, frontend, options)
    failed: list[BaseException] = []

    def protocol() -> None:
        from acp import Agent, run_agent

        try:  # the SDK routes only the methods an agent has: ours are listed in the README
            asyncio.run(run_agent(cast(Agent, agent)))
        except BaseException as exc:  # told by the main thread, as one line
            failed.append(exc)
        finally:  # the editor has gone: a turn still running stops as at Ctrl-C
            runner.stop(interrupt=True)

    thread = threading.Thread(target=protocol, name="acp-protocol", daemon=True)
    thread.start()
    try:
        runner.run()
    finally:
        agent.close_sessions()
    thread.join(timeout=5)
    if failed:
        raise MiniLettaError(
            f"the ACP connection failed: {failed[0]} (an editor starts `mini-letta acp` with "
            "pipes for its stdin and stdout)"
        )
