"""A conversation's system prompt, pinned to the memory commit it was compiled from.

Providers cache the longest identical prefix of a request (tools, system prompt, then the
conversation), so the prompt must not change from one request to the next. A conversation keeps
in conversation.json `systemPrompt` the commit its prompt shows (`memoryCommit`) and the memory
HEAD as it last knew it, its own memory edits included (`seenCommit`). The prompt is recompiled
from HEAD only at these points: a new conversation, a compaction, the start of a turn after
memory was changed by anyone else (a reflection merge, the user, another conversation), and an
explicit request (`chat --recompile`, `/recompile`). The agent's own edits never recompile: it
learnt them from the tool result, and recompiling would re-send the whole prompt uncached.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import GitError
from mini_letta.memory.compile import PromptCompiler

PIN_KEY = "systemPrompt"
RecompileReason = Literal["new conversation", "memory changed", "requested", "compaction"]


@dataclass(frozen=True, slots=True)
class Pin:
    memory_commit: str  # what the prompt shows
    seen_commit: str  # HEAD as this conversation last knew it (its own edits included)

    def to_json(self) -> dict[str, str]:
        return {"memoryCommit": self.memory_commit, "seenCommit": self.seen_commit}

    @classmethod
    def from_json(cls, data: object) -> Pin | None:
        if not isinstance(data, dict):
            return None
        memory, seen = data.get("memoryCommit"), data.get("seenCommit")
        if not isinstance(memory, str) or not isinstance(seen, str):
            return None  # unreadable: treated as unpinned, so the next turn pins afresh
        return cls(memory, seen)


class PinnedPrompt:
    """Callable: the conversation's system prompt. The turn loop moves the pin (lock held)."""

    def __init__(
        self,
        base: str,
        agent_id: str,
        store: ConversationStore,
        compiler: PromptCompiler,
        memory_dir: Path,
    ) -> None:
        self.base = base
        self.agent_id = agent_id
        self.store = store
        self.compiler = compiler
        self.memory_dir = memory_dir
        self._pin: Pin | None = None
        self._loaded = False
        self._requested = False

    def __call__(self) -> str:
        pin = self.pin()
        commit = pin.memory_commit if pin is not None else self.compiler.head()
        try:
            return self._compile(commit)
        except GitError:  # the pinned commit is gone (a rewritten memory): show HEAD
            return self._compile(self.compiler.head())

    def pin(self) -> Pin | None:
        if not self._loaded:
            self._pin = self._load()
        return self._pin

    def request_recompile(self) -> None:
        """Recompile at the start of the next turn (`chat --recompile`, `/recompile`)."""
        self._requested = True

    def is_pending(self) -> bool:
        """Memory has moved past what the prompt shows (the next recompile point will show it)."""
        pin = self.pin()
        return self._requested or (pin is not None and pin.memory_commit != self.compiler.head())

    def begin_turn(self) -> RecompileReason | None:
        """Re-read the pin and recompile when a recompile point has come; returns which."""
        self._loaded = False
        pin = self.pin()
        head = self.compiler.head()
        reason: RecompileReason | None = None
        if pin is None:
            reason = "new conversation"
        elif self._requested:
            reason = "requested"
        elif pin.seen_commit != head:
            reason = "memory changed"
        if reason is not None:
            self._save(Pin(head, head))
        self._requested = False
        return reason

    def recompile(self) -> None:
        """Show memory as it is now (after a compaction)."""
        head = self.compiler.head()
        self._save(Pin(head, head))

    def head(self) -> str:
        return self.compiler.head()

    def note_own_edits(self, before: str) -> None:
        """After the turn's tools ran: a HEAD that moved from what it knew is its own edit."""
        pin = self.pin()
        head = self.compiler.head()
        if pin is not None and pin.seen_commit == before and head != before:
            self._save(Pin(pin.memory_commit, head))

    def _compile(self, commit: str) -> str:
        def metadata() -> dict[str, str]:
            return {
                "agent id": self.agent_id,
                "memory path": str(self.memory_dir),
                "memory commit": commit[:12] or "(none yet)",
            }

        return self.compiler.compile(self.base, metadata, commit)

    def _load(self) -> Pin | None:
        self._loaded = True
        if not self.store.exists():
            return None
        return Pin.from_json(self.store.load_record().extra.get(PIN_KEY))

    def _save(self, pin: Pin) -> None:
        record = self.store.load_record()
        if Pin.from_json(record.extra.get(PIN_KEY)) != pin:
            extra = {**record.extra, PIN_KEY: pin.to_json()}
            self.store.save_record(record.with_updates(extra=extra))
        self._pin, self._loaded = pin, True
