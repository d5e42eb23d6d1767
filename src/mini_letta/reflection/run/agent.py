"""Side agents (the reflection agent, the merge review) on the primary agent's own turn loop.

A side agent is one `run_turn` over a `RunTranscript`: a conversation store whose log is
`reflections/<run-id>.<kind>.jsonl`, beside the run record and never among the user's
conversations. Same loop, same tool runner, same stop reasons and step bound as a chat turn;
only the purpose, system prompt and tools differ. Its scaffolding (record, lock) is hidden and
removed afterwards; the message log is kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

from mini_letta.agents.records import AgentRecord
from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message, Usage
from mini_letta.conversations.records import ConversationRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import NotFoundError
from mini_letta.home import Home, ensure_dir
from mini_letta.llm.base import Provider, Purpose
from mini_letta.loop.events import MessageEvent, TurnResult
from mini_letta.loop.setup import TurnSetup
from mini_letta.loop.turn import run_turn
from mini_letta.storage.locks import exclusive_lock
from mini_letta.structs import Struct, replace
from mini_letta.tools.base import ToolContext, Toolset

DEFAULT_REFLECTION_STEPS = 24
# Tool results that mean the agent tried what it must not: a tool it does not have, a secret
# into memory, a write to a path that is not memory's. A run with one of these failed, whatever
# it did after, so its slice is offered again.
_REFUSALS = ("UnknownTool: ", "SecretDetectedError: ", "OutsideMemoryError: ")


class RunTranscript(ConversationStore):
    """A conversation kept at `reflections/<run-id>.<kind>.jsonl` instead of conversations/.

    Only its message log is kept: its record (title, times, usage totals), which the turn loop
    reads and updates at every step, lives in memory and is never written, as nothing reads it
    after the run (the outcome and the run record take the turn's own result). The run is the
    log's only writer, so what it appended is also kept in memory and the loop's reads at every
    step (the context, the turn's size) are served from there instead of parsing the file again;
    a log that was not empty when the run started is read from the file as any other."""

    def __init__(self, home: Home, agent_id: str, run_id: str, kind: str = "messages") -> None:
        files = home.run_transcript_files(agent_id, run_id, kind)
        super().__init__(agent_id, f"reflection-{run_id}-{kind}", home, files)
        self._record: ConversationRecord | None = None
        self._kept: list[Message] | None = None  # the whole log, once started on an empty one

    def exists(self) -> bool:
        return self._record is not None

    def load_record(self) -> ConversationRecord:
        if self._record is None:
            raise NotFoundError(f"the transcript {self.conversation_id} was not started")
        return self._record

    def save_record(self, record: ConversationRecord) -> None:
        self._record = record

    def lock(self, timeout: float = 30.0) -> contextlib.AbstractContextManager[None]:
        return exclusive_lock(self.files.lock, timeout=timeout, what=self.conversation_id)

    def append(self, messages: Message | Sequence[Message]) -> list[int]:
        """Append with credentials redacted: a run's transcript is kept for review, and what
        the reflection agent wrote into a tool call's arguments is no safer than its text."""
        batch = [
            redacted_message(message)
            for message in ([messages] if isinstance(messages, Message) else messages)
        ]
        lines = super().append(batch)
        kept = self._kept
        if kept is not None:
            if lines == list(range(len(kept), len(kept) + len(batch))):
                kept.extend(batch)
            else:  # not the lines this run's appends alone would make: the file decides
                self._kept = None
        return lines

    def count(self) -> int:
        return super().count() if self._kept is None else len(self._kept)

    def at_line(self, line: int) -> Message | None:
        kept = self._kept
        if kept is None:
            return super().at_line(line)
        return kept[line] if 0 <= line < len(kept) else None

    def tail(self, n: int) -> list[tuple[int, Message]]:
        kept = self._kept
        if kept is None:
            return super().tail(n)
        start = max(0, len(kept) - n) if n > 0 else len(kept)
        return [(line, kept[line]) for line in range(start, len(kept))]

    def iter_from(self, start: int = 0) -> Iterator[tuple[int, Message]]:
        kept = self._kept
        if kept is None:
            yield from super().iter_from(start)
            return
        for line in range(max(0, start), len(kept)):
            yield line, kept[line]

    def iter_reverse(self) -> Iterator[tuple[int, Message]]:
        kept = self._kept
        if kept is None:
            yield from super().iter_reverse()
            return
        for line in range(len(kept) - 1, -1, -1):
            yield line, kept[line]

    def start(self, clock: Clock) -> None:
        """A record with a title and zero usage: the loop then neither titles the task's text
        nor sums an empty log."""
        ensure_dir(self.dir)
        if super().count() == 0:
            self._kept = []
        now = format_timestamp(clock.now())
        self.save_record(
            ConversationRecord(
                self.conversation_id,
                self.agent_id,
                self.conversation_id,
                created_at=now,
                updated_at=now,
                usage_totals={**Usage().to_json(), "modelCalls": 0},
            )
        )

    def discard_scaffolding(self) -> None:
        for path in (self.files.lock, self.log.lock_path):
            with contextlib.suppress(OSError):
                path.unlink()


def redacted_message(message: Message) -> Message:
    """`message` with the scanner's matches redacted from its text and tool-call arguments."""
    from mini_letta.memory.secrets import redact_secrets
    from mini_letta.reflection.run.payload import redact_arguments

    calls = tuple(
        replace(call, arguments=redact_arguments(call.arguments)) for call in message.tool_calls
    )
    content = redact_secrets(message.content) if message.content else ""  # a call has no text
    if content == message.content and calls == message.tool_calls:
        return message
    return replace(message, content=content, tool_calls=calls)


class SideAgentSpec(Struct, frozen=True):
    purpose: Purpose
    agent: AgentRecord
    provider: Provider
    toolset: Toolset
    tool_context: ToolContext
    system_prompt: str
    max_steps: int = DEFAULT_REFLECTION_STEPS


class SideAgentResult(Struct, frozen=True):
    error: str | None  # None when the agent ended its turn normally
    steps: int
    usage: Usage
    text: str
    refusals: tuple[str, ...] = ()  # what the harness refused it (see _REFUSALS)


def run_side_agent(
    spec: SideAgentSpec,
    transcript: RunTranscript,
    task: str,
    clock: Clock,
    on_step: Callable[[], None] | None = None,
) -> SideAgentResult:
    """Run the side agent to the end of its turn; it fails unless it ends with `end_turn`."""
    transcript.start(clock)
    setup = TurnSetup(
        agent=spec.agent,
        store=transcript,
        provider=spec.provider,
        toolset=spec.toolset,
        tool_context=spec.tool_context,
        clock=clock,
        system_prompt=lambda: spec.system_prompt,
        max_steps=spec.max_steps,
        purpose=spec.purpose,
    )
    result: TurnResult | None = None
    try:
        for event in run_turn(setup, task):
            if isinstance(event, TurnResult):
                result = event
            elif (
                on_step is not None
                and isinstance(event, MessageEvent)
                and event.message.role == "assistant"
            ):
                on_step()
    finally:
        transcript.discard_scaffolding()
    assert result is not None, "run_turn always ends with a TurnResult"
    refusals = tuple(
        message.content.split(": ", 1)[1]
        for message in transcript.all()
        if message.role == "tool" and message.is_error and message.content.startswith(_REFUSALS)
    )
    error = None
    if result.stop_reason == "error":
        error = f"the model failed: {result.error}"
    elif result.stop_reason == "max_steps":
        error = f"it did not finish within {spec.max_steps} steps"
    elif result.stop_reason != "end_turn":
        error = f"it stopped with {result.stop_reason}"
    return SideAgentResult(error, result.steps, result.usage, result.text, refusals)
