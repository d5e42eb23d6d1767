"""One conversation of an agent, turn after turn: the front door every front end uses.

A `Session` resolves the agent and the conversation once (workspace.py), builds what a turn
runs with (loop/setup.py), runs each turn (loop/turn.py) and then the post-turn work: the
reflection policy (reflection/policy/session.py `AutoReflection`) and automatic memory sync
(`memorySync: after-merge`). Work that runs detached — a background reflection, a memory sync —
is started by the one injected `Spawner`, so the core starts no process itself and each front
end decides how (the CLI's is cli/background.py). Without a spawner all of it runs here, in
this process. Nothing is printed: a turn yields its events, then `AfterTurn`; outcomes that
arrive outside a turn go to the injected sink.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from mini_letta.conversations.messages import Usage
from mini_letta.llm.base import close_provider
from mini_letta.loop.events import TurnEvent, TurnResult
from mini_letta.loop.setup import TurnOptions, TurnSetup, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.reflection.policy.memory_budget import with_memory_budget
from mini_letta.reflection.policy.session import AutoReflection, Mode, SpawnRequest, choose_mode
from mini_letta.settings import Settings, read_settings
from mini_letta.structs import Struct, replace
from mini_letta.workspace import World, resolve_conversation, resolve_or_create_agent

if TYPE_CHECKING:
    from types import TracebackType

    from mini_letta.agents.records import AgentRecord
    from mini_letta.conversations.store import ConversationStore
    from mini_letta.hooks.runner import HookRunner
    from mini_letta.mcp_client.servers import McpServers
    from mini_letta.reflection.policy.trigger import PostTurnOutcome
    from mini_letta.reflection.state.outcome import ReflectionOutcome


def open_mcp_servers(world: World, files: Settings) -> McpServers | None:
    """The project's and the user's MCP servers, not yet started (None when none is
    configured: then nothing of the MCP client is imported)."""
    if files.mcp_servers() == ([], []):
        return None
    from mini_letta import log
    from mini_letta.mcp_client.servers import configured_servers

    return configured_servers(
        files, world.environ, cwd=world.project_dir, warn=lambda line: log.warning("%s", line)
    )


MAX_STOP_CONTINUATIONS = 3  # a Stop hook that always blocks cannot hold a turn forever


class SyncRequest(Struct, frozen=True):
    """One memory sync for a detached process to run (it records a failure for later)."""

    agent_id: str


PostTurnJob = SpawnRequest | SyncRequest
Spawner = Callable[[PostTurnJob], int]  # starts the process, returns its pid
ReflectionSink = Callable[["PostTurnOutcome | ReflectionOutcome"], None]


class AfterTurn(Struct, frozen=True):
    """A turn's last item: its result and what the post-turn decision did (None: nothing).

    Reflections queued behind it run, and memory sync starts, when the caller asks for the
    next item, so the caller can show this outcome first."""

    result: TurnResult
    reflection: PostTurnOutcome | None


SessionEvent = TurnEvent | AfterTurn


class Session:
    """An agent's conversation, opened once; `turn` runs one user message after another.

    `agent` is an id or name (None: this project's agent, created if there is none);
    `conversation` an id (None: the agent's current one here; `new` starts one).
    `reflection` None lets settings.json's `reflectionMode` choose foreground or background.
    """

    def __init__(
        self,
        world: World,
        *,
        agent: str | None = None,
        conversation: str | None = None,
        new: bool = False,
        options: TurnOptions | None = None,
        reflection: Mode | None = None,
        spawn: Spawner | None = None,
        on_reflection: ReflectionSink | None = None,
        mcp: McpServers | None = None,
    ) -> None:
        self.world = world
        self.options = options or TurnOptions()
        # once, for everything decided at open
        files = read_settings(world.home, world.project_dir)
        self.agent: AgentRecord = resolve_or_create_agent(
            world, agent, files, model=self.options.model
        )
        self.store: ConversationStore = resolve_conversation(
            world, self.agent, conversation, new=new, settings=files
        )
        # Given: shared with other sessions, closed by its owner; else this session's own.
        self._own_mcp = mcp is None
        self.mcp = open_mcp_servers(world, files) if mcp is None else mcp
        try:
            setup = build_turn_setup(world, self.agent, self.store, self.options, files, self.mcp)
        except BaseException:
            self._close_mcp()
            raise
        self.setup: TurnSetup = with_memory_budget(world, self.agent, setup, files)
        try:
            self.hooks: HookRunner | None = None
            self._hook_context = ""  # SessionStart's, for the first turn
            self._prompt_blocked = False
            if files.hook_layers():  # the usual case skips all of hooks/
                self._open_hooks(files)
            mode: Mode = "foreground"
            if spawn is not None:
                mode = reflection or choose_mode(world, files=files)
            self._sink = on_reflection
            self.reflection = AutoReflection(
                world,
                self.agent.id,
                self.store,
                sink=self._deliver,
                mode=mode,
                spawn=spawn,
                hooks=self.hooks,
                files=files,
            )
            self.sync = AutoSync(world, self.agent, spawn, files)
        except BaseException:  # a session that never opened still releases its model client
            self.close()
            raise

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the model's connections (the SDK clients keep a pool) and stop the MCP
        servers this session started."""
        try:
            close_provider(self.setup.provider)
        finally:
            self._close_mcp()

    def _close_mcp(self) -> None:
        if self._own_mcp and self.mcp is not None:
            self.mcp.close()

    def deliver_waiting(self) -> str | None:
        """Give the sink, once, the reflection outcomes no one saw (detached and queued runs),
        oldest first; returns a failed background memory sync no one was told of."""
        self.reflection.deliver_waiting()
        return self.sync.take_failure()

    def turn(self, text: str, *, attach: bool = True) -> Generator[SessionEvent, None, None]:
        """Run one turn: its events, its `TurnResult`, then `AfterTurn`. Read it to the end:
        queued reflections and memory sync run after `AfterTurn` has been taken. A
        KeyboardInterrupt thrown in at an event stops the turn as Ctrl-C does (what was said
        is kept, the stop reason is `interrupted`) and comes back out.

        With `attach`, each file the text names with `@path` goes with it (tools/attachments.py);
        a missing or refused one is an AttachmentError before anything is sent or recorded."""
        if attach:
            from mini_letta.tools.attachments import attach_files

            text = attach_files(text, self.setup.tool_context)
        events = run_turn(self.setup, text) if self.hooks is None else self._hooked_turn(text)
        result = yield from _through(events)
        if self._prompt_blocked:  # a hook kept the prompt back: nothing was said
            self._prompt_blocked = False
            yield AfterTurn(result, None)
            return
        with self.reflection.after_turn(result.stop_reason) as outcome:
            yield AfterTurn(result, outcome)
        self.sync.after_turn()

    def run(self, text: str, *, attach: bool = True) -> TurnResult:
        """One whole turn, post-turn work included; its result (`error` stop on failure)."""
        result: TurnResult | None = None
        for event in self.turn(text, attach=attach):
            if isinstance(event, AfterTurn):
                result = event.result
        assert result is not None
        return result

    def memory(self, path: str) -> str:
        """One of the agent's memory files as it is now (`system/human.md`)."""
        from mini_letta.memory.history import show_memory_file

        return show_memory_file(self.world.home.memory_dir(self.agent.id), path)

    def _open_hooks(self, files: Settings) -> None:
        """The user's hooks for this conversation; SessionStart runs now."""
        from mini_letta.hooks.runner import open_hook_runner

        world, store = self.world, self.store
        mode = self.options.permission_mode
        self.hooks = open_hook_runner(
            files, store, world.project_dir, world.environ, mode, work_dir=world.cwd
        )
        if self.hooks is None:
            return
        fresh = store.count() == 0
        context = replace(self.setup.tool_context, hooks=self.hooks)
        self.setup = replace(self.setup, tool_context=context)
        self._hook_context = self.hooks.session_started("startup" if fresh else "resume").context

    def _hooked_turn(self, text: str) -> Generator[TurnEvent, None, None]:
        """A turn with the user's hooks: UserPromptSubmit may keep the prompt back (a
        TurnResult of no steps, its reason as the error) or add context to it; a Stop hook that
        blocks has the model go on with its reason, at most MAX_STOP_CONTINUATIONS times."""
        from mini_letta.hooks.runner import STOP_FEEDBACK, added_context

        assert self.hooks is not None
        if not text.strip():  # refused by the turn before any hook hears of it
            yield from run_turn(self.setup, text)
            return
        prompt = self.hooks.prompt_submitted(text)
        self._prompt_blocked = prompt.blocked
        if prompt.blocked:
            reason = f"a UserPromptSubmit hook blocked the prompt: {prompt.reason}"
            yield TurnResult("error", "", Usage(), 0, reason)
            return
        message = added_context(text, self._hook_context, prompt.context)
        self._hook_context = ""
        if message != text:
            self._name_conversation(text)  # by the user's words, not the hooks'
        total: TurnResult | None = None
        for round_ in range(MAX_STOP_CONTINUATIONS + 1):
            # the result is held back: the turn may go on
            result = yield from _through(run_turn(self.setup, message), hold_result=True)
            total = result if total is None else _joined(total, result)
            if result.stop_reason in ("error", "interrupted") or round_ == MAX_STOP_CONTINUATIONS:
                break
            stop = self.hooks.stopping(round_ > 0, result.stop_reason)
            if not stop.blocked or result.stop_reason == "max_steps":  # --max-steps wins
                break
            message = STOP_FEEDBACK.format(reason=stop.reason)
        assert total is not None
        yield total

    def _name_conversation(self, text: str) -> None:
        from mini_letta.conversations.records import make_title

        with self.store.lock():
            record = self.store.load_record()
            if not record.title:
                self.store.save_record(record.with_updates(title=make_title(text)))

    def _deliver(self, outcome: PostTurnOutcome | ReflectionOutcome) -> None:
        if self._sink is not None:
            self._sink(outcome)


def _through(
    events: Generator[TurnEvent, None, None], *, hold_result: bool = False
) -> Generator[TurnEvent, None, TurnResult]:
    """The turn's events (its `TurnResult` too, unless held back), then its result; an
    exception thrown in at an event is passed on to the turn (a `for` loop would leave the
    turn suspended, so it could not record it)."""
    result: TurnResult | None = None
    for event in events:
        if isinstance(event, TurnResult):
            result = event
            if hold_result:
                continue
        try:
            yield event
        except BaseException as exc:
            events.throw(exc)  # run_turn records an interrupt and raises it again
            raise
    assert result is not None, "run_turn always ends with a TurnResult"
    return result


def _joined(first: TurnResult, then: TurnResult) -> TurnResult:
    """A turn that went on after a Stop hook: its last answer, all of its steps and usage."""
    return replace(then, usage=first.usage + then.usage, steps=first.steps + then.steps)


class AutoSync:
    """`memorySync: after-merge`: sync memory when a turn (or a merge) moved its HEAD.

    HEAD is read from `.git/HEAD` (no git process); the sync runs detached through `spawn`, so
    a slow or unreachable remote never holds up a turn, or here when there is no spawner. A
    failure is recorded in memory-sync.json; `take_failure` reports it once.
    """

    def __init__(
        self,
        world: World,
        agent: AgentRecord,
        spawn: Callable[[SyncRequest], int] | None,
        files: Settings | None = None,
    ) -> None:
        from mini_letta.reflection.state.settings import load_reflection_settings

        self.world = world
        self.agent_id = agent.id
        self.spawn = spawn
        settings = load_reflection_settings(world.home, world.project_dir, agent, files)
        self.enabled = settings.memory_sync == "after-merge"
        self.head = self._head() if self.enabled else None

    def take_failure(self) -> str | None:
        """The last failed sync's error, once (None: none, or syncing is off)."""
        if not self.enabled:
            return None
        from mini_letta.sync.state import take_unreported_error

        return take_unreported_error(self.world.home, self.agent_id, self.world.clock)

    def after_turn(self) -> int | None:
        """Start a sync if memory has a new commit since the last look; the worker's pid
        (None: nothing to sync; this process's pid when it synced here)."""
        if not self.enabled:
            return None
        head = self._head()
        if head == self.head:
            return None
        self.head = head
        if self.spawn is not None:
            return self.spawn(SyncRequest(self.agent_id))
        return self._sync_here()

    def _sync_here(self) -> int:
        import os
        from contextlib import suppress

        from mini_letta.sync.engine import SyncError, sync_memory

        world = self.world
        with suppress(SyncError):  # recorded in memory-sync.json; `take_failure` reports it
            sync_memory(world.home, self.agent_id, world.clock, world.environ)
        return os.getpid()

    def _head(self) -> str | None:
        from mini_letta.memory.repo import GitRepo

        return GitRepo(self.world.home.memory_dir(self.agent_id)).head_sha_or_none()
