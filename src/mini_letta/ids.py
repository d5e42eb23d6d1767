"""Identifiers: agents and conversations are uuid4; messages and runs are time-sortable.

A message id is `msg-<ms since epoch, 12 hex><16 random hex>`: it sorts by creation time across
processes, and the random part makes a collision between two writers in the same millisecond
vanishingly unlikely. Run ids follow the chapter: `YYYYMMDDHHMMSS-<8 hex>` in UTC.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime


def new_agent_id() -> str:
    return f"agent-{uuid.uuid4()}"


def new_conversation_id() -> str:
    return f"conv-{uuid.uuid4()}"


def new_message_id(moment: datetime) -> str:
    millis = int(moment.timestamp() * 1000)
    return f"msg-{millis:012x}{secrets.token_hex(8)}"


def new_run_id(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%d%H%M%S") + "-" + secrets.token_hex(4)
