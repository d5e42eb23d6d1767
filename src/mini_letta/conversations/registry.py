"""The conversations of an agent: create one, list them, load one by id."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.records import ConversationRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import LockTimeoutError, NotFoundError
from mini_letta.home import Home, ensure_dir
from mini_letta.ids import new_conversation_id

if TYPE_CHECKING:
    from mini_letta.storage.damaged import Damaged


def create_conversation(home: Home, agent_id: str, clock: Clock) -> ConversationStore:
    store = ConversationStore(agent_id, new_conversation_id(), home)
    ensure_dir(store.dir)
    now = format_timestamp(clock.now())
    store.save_record(
        ConversationRecord(
            id=store.conversation_id, agent_id=agent_id, title="", created_at=now, updated_at=now
        )
    )
    return store


def open_conversation(home: Home, agent_id: str, conversation_id: str) -> ConversationStore:
    """An existing conversation; an unknown id is a clear error."""
    store = ConversationStore(agent_id, conversation_id.strip(), home)
    if not store.exists():
        raise NotFoundError(
            f"conversation {conversation_id!r} not found for this agent "
            "(see `mini-letta conversations list`)"
        )
    return store


def discard_if_empty(store: ConversationStore) -> bool:
    """Remove the conversation when it holds no message (a `/new` never written to), under its
    turn lock so a turn that has begun keeps it; True when it was removed."""
    import shutil

    try:
        with store.lock(timeout=0):
            if not store.exists() or store.count() != 0:
                return False
            shutil.rmtree(store.dir)
    except LockTimeoutError:  # a turn (here or in another process) is using it
        return False
    return True


def list_conversations(home: Home, agent_id: str) -> list[ConversationRecord]:
    """All conversations of an agent, most recently updated first; a corrupt one raises."""
    records, damaged = scan_conversations(home, agent_id)
    if damaged:
        raise damaged[0].error()
    return records


def scan_conversations(home: Home, agent_id: str) -> tuple[list[ConversationRecord], list[Damaged]]:
    """All conversations, most recently updated first, and those whose record cannot be read."""
    root = home.conversations_dir(agent_id)
    if not root.is_dir():
        return [], []
    entries = sorted(
        (entry.name, home.conversation_file(agent_id, entry.name))
        for entry in root.iterdir()
        if home.conversation_file(agent_id, entry.name).exists()
    )
    from mini_letta.storage.damaged import load_each

    records, damaged = load_each(
        entries, lambda name: ConversationStore(agent_id, name, home).load_record()
    )
    records.sort(key=lambda record: (record.updated_at, record.id), reverse=True)
    return records, damaged
