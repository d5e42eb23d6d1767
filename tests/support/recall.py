"""Helpers for recall tests: write a message with a known id and time."""

from __future__ import annotations

import itertools

from mini_letta.conversations.messages import Message

_ids = itertools.count()


def say(store, role, text, created="2026-03-01T10:00:00.000Z", msg_id=None):
    """Append one message and return its id."""
    message_id = msg_id or f"msg-{next(_ids):06d}"
    store.append(Message(message_id, role, text, created))
    return message_id
