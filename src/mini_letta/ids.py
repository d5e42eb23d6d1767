"""Identifiers: agents and conversations are uuid4; messages and runs are time-sortable.

A message id is `msg-<ms since epoch, 12 hex><16 random hex>`: it sorts by creation time across
processes, and the random part makes a collision between two writers in the same millisecond
vanishingly unlikely. Run ids are `YYYYMMDDHHMMSS-<8 hex>` in UTC, so they sort by start time.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime


def new_agent_id() -> str:
    return f"agent-{_uuid4()}"


def new_conversation_id() -> str:
    return f"conv-{_uuid4()}"


def _uuid4() -> str:
    """A random (version 4) UUID in its canonical form, without importing `uuid` (which pulls in
    `platform` and its regexes, a few milliseconds of every command's start-up)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def random_hex(nbytes: int) -> str:
    """`secrets.token_hex` (the same OS randomness) without importing `secrets`, which pulls
    in hmac, hashlib and base64 at every start-up."""
    return os.urandom(nbytes).hex()


def new_message_id(moment: datetime) -> str:
    millis = int(moment.timestamp() * 1000)
    return f"msg-{millis:012x}{random_hex(8)}"


def new_run_id(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%d%H%M%S") + "-" + random_hex(4)
