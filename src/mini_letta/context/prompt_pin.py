"""A conversation's system prompt, pinned to the memory commit it was compiled from.

Providers cache the longest identical prefix of a request (tools, system prompt, then the
conversation), so the prompt must not change from one request to the next. A conversation keeps
in conversation.json `systemPrompt` the commit its prompt shows (`memoryCommit`) and the memory
HEAD as it last knew it, its own memory edits included (`seenCommit`). The prompt is recompiled
from HEAD only at these points: a new conversation, a compaction, and an explicit request
(`chat --recompile`, `/recompile`). The agent's own edits never recompile: it learnt them from
the tool result, and recompiling would re-send the whole prompt and conversation uncached.
Memory changed by anyone else (a reflection merge, the user, another conversation) is found at
the start of a turn and becomes a memory update (`updates`): the changed files, rendered from
the two commits, ride with that turn's user message in this and every later request, so all
that was cached stays cached. When the updates would outgrow the prompt they amend, that turn
recompiles instead; a recompile folds them in and drops them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import GitError
from mini_letta.memory.compile import PromptCompiler, render_memory_update
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mini_letta.skills.prompt import SkillsPrompt

UPDATE_ID_PREFIX = "memory-update-"
RecompileReason = Literal["new conversation", "memory changed", "requested", "compaction"]
BeginTurn = RecompileReason | Literal["memory update"]


class MemoryUpdate(Struct, frozen=True):
    """Memory moved from `from_commit` to `to_commit`; told with user message `message_id`."""

    message_id: str
    from_commit: str
    to_commit: str

    def to_json(self) -> dict[str, str]:
        return {"messageId": self.message_id, "from": self.from_commit, "to": self.to_commit}

    @classmethod
    def from_json(cls, data: object) -> MemoryUpdate | None:
        if not isinstance(data, dict):
            return None
        fields = [data.get(key) for key in ("messageId", "from", "to")]
        if not all(isinstance(value, str) for value in fields):
            return None
        return cls(*(str(value) for value in fields))


class Pin(Struct, frozen=True):
    memory_commit: str  # what the prompt shows
    seen_commit: str  # HEAD as this conversation last knew it (its own edits included)
    updates: tuple[MemoryUpdate, ...] = ()  # changes by others since memory_commit, in order

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "memoryCommit": self.memory_commit,
            "seenCommit": self.seen_commit,
        }
        if self.updates:
            data["updates"] = [update.to_json() for update in self.updates]
        return data

    @classmethod
    def from_json(cls, data: object) -> Pin | None:
        if not isinstance(data, dict):
            return None
        memory, seen = data.get("memoryCommit"), data.get("seenCommit")
        if not isinstance(memory, str) or not isinstance(seen, str):
            return None  # unreadable: treated as unpinned, so the next turn pins afresh
        raw = data.get("updates")
        updates = [MemoryUpdate.from_json(item) for item in raw] if isinstance(raw, list) else []
        return cls(memory, seen, tuple(update for update in updates if update is not None))


class PinnedPrompt:
    """Callable: the conversation's system prompt. The turn loop moves the pin (lock held)."""

    def __init__(
        self,
        base: str,
        agent_id: str,
        store: ConversationStore,
        compiler: PromptCompiler,
        memory_dir: Path,
        skills: SkillsPrompt | None = None,
    ) -> None:
        self.base = base
        self.skills = skills  # the session's skills block (memory's at the pinned commit)
        self.agent_id = agent_id
        self.store = store
        self.compiler = compiler
        self.memory_dir = memory_dir
        self._pin: Pin | None = None
        self._loaded = False
        self._requested = False
        self._update_texts: dict[tuple[str, str], str] = {}

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

    def begin_turn(
        self, message_id: str | None = None, changes: Mapping[str, object] | None = None
    ) -> BeginTurn | None:
        """Re-read the pin; recompile at a recompile point, or record memory changed by others
        as an update told with user message `message_id` (without one: recompile).

        `changes`: the turn's own conversation.json updates (a first turn's title), saved in
        the same write as the pin, or alone when the pin stays."""
        self._loaded = False
        pin = self.pin()
        head = self.compiler.head()
        reason: BeginTurn | None = None
        if pin is None:
            reason = "new conversation"
        elif self._requested:
            reason = "requested"
        elif pin.seen_commit != head:
            reason = "memory changed"
            updates = self._updates_after(pin, message_id, head) if message_id else None
            if updates is not None:
                self._save(Pin(pin.memory_commit, head, updates), changes)
                return "memory update"
        if reason is not None:
            self._save(Pin(head, head), changes)
        elif changes:
            assert pin is not None  # no reason to recompile: there is a pin
            self._save(pin, changes)
        self._requested = False
        return reason

    def attach_updates(self, messages: tuple[Message, ...]) -> tuple[Message, ...]:
        """The messages with each memory update placed just before the user message it rides
        with (the first user message when compaction left that one out of the view)."""
        pin = self.pin()
        for update in pin.updates if pin is not None else ():
            try:
                text = self._update_text(update)
            except GitError:  # a rewritten memory: the next turn recompiles
                continue
            index = next((i for i, m in enumerate(messages) if m.id == update.message_id), None)
            if index is None:
                users = (i for i, m in enumerate(messages) if m.role == "user")
                index = next(users, None)
            if not text or index is None:
                continue
            host = messages[index]
            note = Message(
                id=UPDATE_ID_PREFIX + host.id, role="user", content=text, created_at=host.created_at
            )
            messages = (*messages[:index], note, *messages[index:])
        return messages

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
            self._save(Pin(pin.memory_commit, head, pin.updates))

    def _updates_after(
        self, pin: Pin, message_id: str, head: str
    ) -> tuple[MemoryUpdate, ...] | None:
        """The pin's updates with this change added, or None when a recompile is better: once
        the updates outgrow the prompt they amend, folding them in makes every request smaller."""
        update = MemoryUpdate(message_id, pin.seen_commit, head)
        try:
            if not self._update_text(update):  # no memory file changed
                return pin.updates
            updates = (*pin.updates, update)
            size = sum(len(self._update_text(u)) for u in updates)
        except GitError:  # a commit is gone (a rewritten memory): recompile
            return None
        return updates if size <= len(self.base) + len(self.compiler.memory_section(head)) else None

    def _update_text(self, update: MemoryUpdate) -> str:
        key = (update.from_commit, update.to_commit)
        if key not in self._update_texts:
            repo = self.compiler.repo
            if update.from_commit:
                before, after = repo.read_changed_blobs(update.from_commit, update.to_commit)
            else:
                before, after = {}, repo.read_blobs(update.to_commit)
            text = render_memory_update(before, after, update.to_commit, self.compiler.budget())
            self._update_texts[key] = text
        return self._update_texts[key]

    def _compile(self, commit: str) -> str:
        def metadata() -> dict[str, str]:
            return {
                "agent id": self.agent_id,
                "memory path": str(self.memory_dir),
                "memory commit": commit[:12] or "(none yet)",
            }

        skills = ""
        if self.skills is not None:
            skills = self.skills.block(self.compiler.memory_skills(commit))
        return self.compiler.compile(self.base, metadata, commit, skills)

    def _load(self) -> Pin | None:
        self._loaded = True
        if not self.store.exists():
            return None
        return Pin.from_json(self.store.load_record().system_prompt)

    def _save(self, pin: Pin, changes: Mapping[str, object] | None = None) -> None:
        record = self.store.load_record()
        updates = dict(changes or {})
        if Pin.from_json(record.system_prompt) != pin:
            updates["system_prompt"] = pin.to_json()
        if updates:  # one atomic write for the pin and the turn's changes
            self.store.save_record(record.with_updates(**updates))
        self._pin, self._loaded = pin, True
