"""The in-context view of a conversation and the model request built from it.

The view is the log from conversation.json's `context.startLine` on, read backwards from the end
and never past what the window can hold, so its cost follows the window, not the log length.
It always starts at a user or summary message, so no tool result is sent without its call.
"""

from __future__ import annotations

from dataclasses import dataclass

from mini_letta.context.tokens import estimate_message_tokens
from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore


@dataclass(frozen=True, slots=True)
class ContextView:
    messages: tuple[Message, ...]
    first_line: int
    tokens: int
    truncated: bool


def load_context_view(store: ConversationStore, budget_tokens: int) -> ContextView:
    """The in-context messages, newest kept first when the budget cannot hold them all."""
    start = store.load_record().context.start_line
    picked: list[tuple[int, Message]] = []
    tokens = 0
    truncated = False
    for line, message in store.iter_reverse():
        if line < start:
            break
        cost = estimate_message_tokens(message)
        if picked and tokens + cost > budget_tokens:
            truncated = True
            break
        picked.append((line, message))
        tokens += cost
    picked.reverse()
    # A summary stands for everything before it; a tool result needs its call.
    while picked and picked[0][1].role not in ("user", "summary") and len(picked) > 1:
        tokens -= estimate_message_tokens(picked.pop(0)[1])
    first_line = picked[0][0] if picked else store.count()
    return ContextView(tuple(m for _, m in picked), first_line, tokens, truncated)
