"""One-shot context the harness adds to a conversation: agent and conversation ids, memory, folder.

The reminder rides along with one user message, its carrier (conversation.json
`reminders.messageId`), and is sent just before it for as long as the carrier is in context, so
it costs its tokens once per request. When compaction removes the carrier, the reminder moves to
the current user message, so the turn after a compaction gets it again. It is never written to
the log: it is rendered fresh from the turn's setup each time.
"""

from __future__ import annotations

from pathlib import Path

from mini_letta.context.builder import ContextView
from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.structs import Struct

REMINDER_ID_PREFIX = "reminder-"


class Reminder(Struct, frozen=True):
    agent_id: str
    conversation_id: str
    memory_dir: Path | None
    cwd: Path

    def render(self) -> str:
        lines = [
            "<system-reminder>",
            f"agent id: {self.agent_id}",
            f"conversation id: {self.conversation_id}",
        ]
        if self.memory_dir is not None:
            lines.append(f"memory: {self.memory_dir} (a git repository; use the memory tool)")
        lines += [f"working directory: {self.cwd}", "</system-reminder>"]
        return "\n".join(lines)


class WithReminder(Struct, frozen=True):
    messages: tuple[Message, ...]
    index: int | None  # where the reminder sits in `messages`
    carrier_id: str | None
    moved: bool  # the carrier changed and should be recorded


def recorded_carrier(view: ContextView) -> str | None:
    entry = view.record.reminders
    if isinstance(entry, dict) and isinstance(entry.get("messageId"), str):
        return str(entry["messageId"])
    return None


def attach_reminder(view: ContextView, text: str) -> WithReminder:
    """The view's messages with the reminder placed just before its carrier."""
    messages = view.messages
    carrier = recorded_carrier(view)
    index = next((i for i, m in enumerate(messages) if m.id == carrier), None)
    moved = False
    if index is None:
        index = view.last_user_index()
        if index is None:
            return WithReminder(messages, None, None, False)
        carrier, moved = messages[index].id, True
    host = messages[index]
    reminder = Message(
        id=REMINDER_ID_PREFIX + host.id, role="user", content=text, created_at=host.created_at
    )
    return WithReminder((*messages[:index], reminder, *messages[index:]), index, carrier, moved)


def save_reminder_carrier(store: ConversationStore, carrier_id: str) -> None:
    """Record which message carries the reminder (caller holds the conversation lock)."""
    record = store.load_record()
    store.save_record(record.with_updates(reminders={"messageId": carrier_id}))
