"""A chat session for the CLI: the core's `Session` (session.py) and a renderer.

Used by `chat -p` (one turn), stream-json input (one turn per stdin line) and the interactive
session, so all three resolve, run and report turns the same way. The session resolves the
agent and conversation, runs each turn and the post-turn work (reflection, memory sync); the
CLI gives it the spawner for detached workers (cli/background.py) and renders what it yields.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from mini_letta.cli.background import Watch, cli_spawner
from mini_letta.cli.reflection_view import render_outcome_line
from mini_letta.cli.render import Renderer, SessionInfo
from mini_letta.loop.events import TurnResult
from mini_letta.loop.setup import DEFAULT_MAX_STEPS, TurnOptions, TurnSetup
from mini_letta.session import AfterTurn, Session
from mini_letta.structs import Struct
from mini_letta.tools.base import Approver
from mini_letta.tools.permissions import PermissionMode
from mini_letta.workspace import World

if TYPE_CHECKING:
    from mini_letta.cli.answer_view import AnswerView
    from mini_letta.cli.chat_args import OutputFormat
    from mini_letta.mcp_client.servers import McpServers
    from mini_letta.reflection.api import Mode, PostTurnOutcome, ReflectionOutcome


class SessionRequest(Struct, frozen=True):
    world: World
    agent_ref: str | None = None
    conversation_id: str | None = None
    new: bool = False
    model: str | None = None
    output_format: OutputFormat = "text"
    max_steps: int = DEFAULT_MAX_STEPS
    base_url: str | None = None
    context_window: int | None = None
    permission_mode: PermissionMode = "default"
    tools: tuple[str, ...] | None = None
    allowed_tools: frozenset[str] = frozenset()
    disallowed_tools: frozenset[str] = frozenset()
    approve: Approver | None = None
    background_reflection: bool = False  # detach triggered reflections (`--background-reflection`)
    reflection_watch: Watch | None = None  # the interactive session watches its workers
    recompile: bool = False  # `chat --recompile`: the first turn shows memory as it is now
    answer_view: AnswerView | None = None  # the interactive terminal: answers end as markdown
    on_reflection: Callable[[PostTurnOutcome | ReflectionOutcome], None] | None = None
    width: Callable[[], int | None] | None = None  # the interactive terminal's columns
    number_tools: bool = False  # the interactive session: tool lines carry `[N]` for /expand
    mcp: McpServers | None = None  # the interactive session's MCP servers, kept across switches

    def turn_options(self) -> TurnOptions:
        return TurnOptions(
            model=self.model,
            base_url=self.base_url,
            context_window=self.context_window,
            max_steps=self.max_steps,
            permission_mode=self.permission_mode,
            approve=self.approve,
            tools=self.tools,
            allowed_tools=self.allowed_tools,
            disallowed_tools=self.disallowed_tools,
            recompile=self.recompile,
        )


class ChatSession:
    """The core `Session` with a renderer: what a CLI chat shows of each turn."""

    def __init__(self, request: SessionRequest, out: TextIO | None, err: TextIO | None) -> None:
        world = request.world
        self.request = request
        watch = request.reflection_watch
        mode: Mode | None = "watched" if watch is not None else None
        if mode is None and request.background_reflection:
            mode = "background"
        self.session = Session(
            world,
            agent=request.agent_ref,
            conversation=request.conversation_id,
            new=request.new,
            options=request.turn_options(),
            reflection=mode,
            spawn=cli_spawner(world, watch),
            on_reflection=self._show_reflection,
            mcp=request.mcp,
        )
        self.agent = self.session.agent
        self.store = self.session.store
        self.setup: TurnSetup = self.session.setup
        try:
            self._start(request, out, err)
        except BaseException:  # a session that never started still releases its model client
            self.close()
            raise

    def _start(self, request: SessionRequest, out: TextIO | None, err: TextIO | None) -> None:
        tty = out is not None and out.isatty()
        self.renderer = Renderer(
            request.output_format, out, err, stream_text=tty, answer=request.answer_view
        )
        if request.width is not None:
            self.renderer.width = request.width
        self.renderer.number_tools = request.number_tools
        self.renderer.start(
            SessionInfo(
                self.agent.id,
                self.store.conversation_id,
                self.setup.provider.handle,
                # only stream-json's init event lists them: the MCP servers start at that
                # listing, and otherwise wait for the first request
                tuple(self.setup.toolset.names()) if request.output_format == "stream-json" else (),
                request.permission_mode,
                str(request.world.cwd),
            )
        )
        failure = self.session.deliver_waiting()
        if failure is not None and err is not None:
            err.write(f"mini-letta: memory sync failed: {failure} (retried at the next sync)\n")
            err.flush()

    def close(self) -> None:
        """Release the model's connections (the SDK clients keep a pool)."""
        self.session.close()

    def turn(self, text: str, *, attach: bool = True) -> TurnResult:
        """Run and render one turn; provider failures come back as stop reason `error`, an
        `@path` that cannot be attached as an AttachmentError before anything is sent."""
        started = time.monotonic()
        result: TurnResult | None = None
        duration = 0
        self.renderer.tool_count = 0
        for event in self.session.turn(text, attach=attach):
            if isinstance(event, AfterTurn):
                if self.renderer.fmt != "text":
                    outcome = event.reflection
                    reflection = None if outcome is None else outcome.to_json()
                    self.renderer.finish(event.result, duration, {"reflection": reflection})
                if event.result.stop_reason == "error":
                    self.renderer.error_line(f"mini-letta: the turn failed: {event.result.error}")
            elif isinstance(event, TurnResult):
                result = event
                duration = int((time.monotonic() - started) * 1000)
                if self.renderer.fmt == "text":  # the answer first, then the reflection's line
                    self.renderer.finish(result, duration, {})
            else:
                self.renderer.event(event)
        assert result is not None, "a session's turn always ends with a TurnResult"
        return result

    def _show_reflection(self, outcome: PostTurnOutcome | ReflectionOutcome) -> None:
        if self.request.on_reflection is not None:
            self.request.on_reflection(outcome)
        self.renderer.notice("reflection", render_outcome_line(outcome), outcome.to_json())


def exit_code(result: TurnResult) -> int:
    return 1 if result.stop_reason == "error" else 0
