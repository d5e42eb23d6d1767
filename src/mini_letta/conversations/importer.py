"""Import a transcript as a new conversation, all or nothing.

The conversation is written whole in a staging folder beside the agent's conversations
(messages.jsonl with its index, then conversation.json) and renamed into place in one step,
so a crash or a bad file never leaves half a conversation that `conversations list`, search
or reflection could see. Message ids are made from each message's own time, so they sort
like the transcript.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.records import ConversationRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.conversations.transcripts import Transcript
from mini_letta.errors import UnwritableError
from mini_letta.home import Home, ensure_dir
from mini_letta.ids import new_conversation_id, new_message_id
from mini_letta.storage.atomic import fsync_directory, save_json
from mini_letta.storage.jsonl import JsonlLog
from mini_letta.structs import Struct

TITLE_LIMIT = 80


class ImportSource(Struct, frozen=True):
    transcript: Transcript
    file_name: str
    title: str | None = None


def import_conversation(
    home: Home, agent_id: str, source: ImportSource, clock: Clock
) -> ConversationStore:
    """Write `source` as a new conversation of the agent and return it."""
    now = clock.now()
    messages = [
        Message(
            id=new_message_id(item.created_at or now),
            role=item.role,
            content=item.content,
            created_at=format_timestamp(item.created_at or now),
        )
        for item in source.transcript.messages
    ]
    conversation_id = new_conversation_id()
    record = ConversationRecord(
        id=conversation_id,
        agent_id=agent_id,
        title=source.title or _default_title(source),
        created_at=messages[0].created_at,
        updated_at=max(message.created_at for message in messages),
        imported_from={"format": source.transcript.format, "file": source.file_name},
    )
    files = home.conversation_files(agent_id, conversation_id)
    staging = ensure_dir(home.import_staging_dir(agent_id)) / conversation_id
    target = files.dir
    ensure_dir(target.parent)
    try:
        staging.mkdir()
        log = JsonlLog(staging / files.messages.name)
        log.append([message.to_json() for message in messages])
        save_json(staging / files.record.name, record.to_json())
        os.rename(staging, target)
        fsync_directory(target.parent)
    except OSError as exc:
        raise UnwritableError(target, exc.strerror or str(exc)) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(staging)  # after a rename there is nothing left; else, the half-write
    return ConversationStore(agent_id, conversation_id, home)


def _default_title(source: ImportSource) -> str:
    from mini_letta.memory.secrets import redact_secrets

    first_user = next((m for m in source.transcript.messages if m.role == "user"), None)
    text = first_user.content if first_user else Path(source.file_name).stem
    return " ".join(redact_secrets(text).split())[:TITLE_LIMIT]
