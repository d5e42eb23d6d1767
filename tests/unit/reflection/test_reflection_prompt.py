"""The reflection prompt asks for the discipline the memory gate enforces, and the transcript
shows each message's id for the agent to cite."""

from __future__ import annotations

from mini_letta.conversations.messages import Message
from mini_letta.reflection.run.payload import normalise_message
from mini_letta.reflection.run.task import build_reflection_task, reflection_system_prompt


def test_the_prompt_asks_for_evidence_and_for_keeping_confirmed_facts():
    prompt = reflection_system_prompt()
    for phrase in (
        "Keep confirmed facts unless the user says they changed",
        "record the new observation beside the old one",
        "prefer the user's latest explicit statement",
        "`evidence`, a list of the ids",
    ):
        assert phrase in prompt


def test_the_transcript_shows_each_messages_id():
    message = Message("msg-01a11c449c8800313d348d31ce5c", "user", "hi", "2026-10-08T16:00:00Z")
    payload = {"messages": [normalise_message(message)], "conversationId": "conv-1"}
    task = build_reflection_task([payload], "memory", None)
    assert '"id":"msg-01a11c449c8800313d348d31ce5c"' in task
