"""Agent and conversation ids are canonical random (version 4) UUIDs behind their prefix."""

from __future__ import annotations

import uuid

from mini_letta.ids import new_agent_id, new_conversation_id


def test_agent_and_conversation_ids_are_canonical_uuid4() -> None:
    ids = [new_agent_id() for _ in range(200)] + [new_conversation_id() for _ in range(200)]
    for prefixed in ids:
        prefix, _, text = prefixed.partition("-")
        assert prefix in ("agent", "conv")
        parsed = uuid.UUID(text)
        assert str(parsed) == text  # lower-case, 8-4-4-4-12
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert len(set(ids)) == len(ids)
