"""The in-context view of a conversation: derived from the log plus conversation.json `context`.

The view is the newest compaction summary, then the log from the line that summary keeps from
(older summaries left out, they are folded into the newer one), in log order. The log is read
backwards from the end and never past what the budget can hold, so the cost follows the window,
not the log length. A summary appended after the pointer (a crash between compaction's two
writes) is recognised, because the summary itself records the line it keeps from; without any
summary the pointer's `startLine` is the floor. The view starts at a user message after the
summary, so no tool result is sent without its call.
"""

from __future__ import annotations

from mini_letta.conversations.messages import Message
from mini_letta.conversations.records import ConversationRecord
from mini_letta.conversations.store import ConversationStore
from mini_letta.llm.tokens import estimate_message_tokens
from mini_letta.structs import Struct


def compaction_threshold(window: int) -> int:
    """Compact when the context exceeds this: the window less min(16384, 20% of it)."""
    return max(0, window - min(16384, max(1, window // 5)))


class ContextView(Struct, frozen=True):
    messages: tuple[Message, ...]
    lines: tuple[int, ...]
    first_line: int  # log line of the oldest non-summary message in the view
    tokens: int
    truncated: bool
    record: ConversationRecord
    summary: Message | None = None

    @property
    def fresh_from(self) -> int:
        """Index of the first message appended after the summary (usage before it is stale)."""
        if self.summary is None:
            return 0
        summary_line = self.lines[0]
        for index, line in enumerate(self.lines[1:], start=1):
            if line > summary_line:
                return index
        return len(self.lines)

    def last_user_index(self) -> int | None:
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index].role == "user":
                return index
        return None


class _Scan(Struct):
    budget: int
    tokens: int = 0
    truncated: bool = False
    summary: tuple[int, Message] | None = None

    def fits(self, cost: int, have_any: bool) -> bool:
        if have_any and self.tokens + cost > self.budget:
            self.truncated = True
            return False
        self.tokens += cost
        return True


def load_context_view(store: ConversationStore, budget_tokens: int) -> ContextView:
    """The in-context messages; when the budget cannot hold them all, the newest are kept."""
    record = store.load_record()
    floor = record.context.start_line
    if floor and floor >= store.count():
        floor = 0  # a pointer past the end belongs to another log (restored from a backup)
    scan = _Scan(budget_tokens)
    newer: list[tuple[int, Message]] = []  # after the summary, newest first
    kept: list[tuple[int, Message]] = []  # before the summary, kept by it, newest first
    for line, message in store.iter_reverse():
        if line < floor:
            break
        if message.role == "summary":
            if scan.summary is None and message.compaction is not None:
                scan.tokens += estimate_message_tokens(message)
                scan.summary = (line, message)
                floor = min(message.compaction.kept_from_line, line)
            continue  # an older summary is folded into the newer one
        if not scan.fits(estimate_message_tokens(message), bool(newer or kept)):
            break
        (kept if scan.summary is not None else newer).append((line, message))
    body = [*reversed(kept), *reversed(newer)]
    tokens = scan.tokens
    while body and body[0][1].role != "user":
        tokens -= estimate_message_tokens(body.pop(0)[1])
    first_line = body[0][0] if body else store.count()
    if scan.summary is not None:
        body.insert(0, scan.summary)
    return ContextView(
        messages=tuple(message for _, message in body),
        lines=tuple(line for line, _ in body),
        first_line=first_line,
        tokens=tokens,
        truncated=scan.truncated,
        record=record,
        summary=scan.summary[1] if scan.summary is not None else None,
    )
