"""compact_conversation: summarise the oldest in-context messages, keep the recent ones.

messages.jsonl stays the full append-only record. Compaction writes, in this order: (1) a
`summary` message appended to the log, recording the line it keeps from; (2) conversation.json
`context` moved to that line; (3) the compaction flag raised (context/compaction_flag.py), which
the post-turn reflection decision lowers. A crash after (1) leaves a view the reader already
derives from the log; the next turn writes (2) and (3) (context/compaction_record.py). The kept part
starts at a user message, so no kept tool result loses its call. Callers hold the lock. A
summary that would not make the context smaller writes nothing (`CompactionSkipped` says why).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from mini_letta.clock import Clock, format_timestamp
from mini_letta.context.builder import ContextView, compaction_threshold, load_context_view
from mini_letta.context.compaction_record import record_compaction
from mini_letta.context.summariser import render_summary_content, render_transcript, summarise
from mini_letta.conversations.messages import CompactionInfo, Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.ids import new_message_id
from mini_letta.llm.base import Provider
from mini_letta.llm.tokens import estimate_message_tokens, estimate_messages_tokens
from mini_letta.structs import Struct, replace

CompactionTrigger = Literal["before-call", "after-response", "overflow", "manual"]
KEEP_SHARE = 0.3  # of the window, kept verbatim after a compaction
READ_WINDOWS = 2  # compaction reads up to this many windows of in-context messages
SUMMARY_MIN_TOKENS = 48
SUMMARY_MAX_TOKENS = 4096


class CompactionBudget(Struct, frozen=True):
    window: int
    prompt_tokens: int  # system prompt, tool schemas and reminders of the chat request
    keep_tokens: int
    summary_tokens: int


def plan_budget(window: int, prompt_tokens: int, shrink: int = 1) -> CompactionBudget:
    """Room after the prompt: a quarter for the summary, up to half (and 30% of the window)
    kept, so a compacted context sits well under the threshold. `shrink` > 1 keeps less (used
    when the provider overflowed even though our estimate said it fits)."""
    room = max(0, compaction_threshold(window) - prompt_tokens)
    summary = min(SUMMARY_MAX_TOKENS, max(SUMMARY_MIN_TOKENS, room // 4))
    keep = min(int(window * KEEP_SHARE), room // 2) // max(1, shrink)
    return CompactionBudget(window, prompt_tokens, keep, summary)


class CompactionResult(Struct, frozen=True):
    summary: Message
    line: int
    messages_compacted: int
    tokens_before: int
    tokens_after: int
    trigger: CompactionTrigger


class CompactionSkipped(Struct, frozen=True):
    """The summary would not have shrunk the context, so nothing was written."""

    tokens_before: int
    tokens_after: int
    trigger: CompactionTrigger

    @property
    def reason(self) -> str:
        return (
            "the summary would not shrink the context "
            f"({self.tokens_before} → {self.tokens_after} tokens); nothing was changed"
        )


def choose_cut(view: ContextView, keep_tokens: int) -> int | None:
    """Index of the first kept message: a user message, with something real before it.

    The oldest cut whose suffix fits `keep_tokens`; if none fits, the current (last) user
    message, so everything before it is summarised. None when there is nothing to summarise.
    """
    messages = view.messages
    candidates: list[int] = []
    seen_real = False
    for index, message in enumerate(messages):
        if message.role == "user" and seen_real:
            candidates.append(index)
        if message.role != "summary":
            seen_real = True
    if not candidates:
        return None
    allowed = set(candidates)
    suffix = 0
    fitting: int | None = None
    for index in range(len(messages) - 1, candidates[0] - 1, -1):
        suffix += estimate_message_tokens(messages[index])
        if suffix > keep_tokens:
            break
        if index in allowed:
            fitting = index
    return fitting if fitting is not None else candidates[-1]


def compact_conversation(
    store: ConversationStore,
    provider: Provider,
    clock: Clock,
    budget: CompactionBudget,
    trigger: CompactionTrigger,
    tokens_before: int | None = None,
    focus: str | None = None,
    on_start: Callable[[], None] | None = None,
) -> CompactionResult | CompactionSkipped | None:
    """Compact the conversation's context; None when there is nothing to summarise.
    `on_start` is called once it is sure to summarise (the user's PreCompact hooks).

    Raises the summariser's errors (ProviderError kinds, ContextWindowTooSmallError) before
    anything is written.
    """
    view = load_context_view(store, READ_WINDOWS * budget.window)
    keep = budget.keep_tokens
    if trigger == "manual":  # asked for: compact even a context that fits the window easily
        keep = min(keep, int(view.tokens * KEEP_SHARE))
    cut = choose_cut(view, keep)
    if cut is None:
        return None
    if on_start is not None:
        on_start()
    old, kept = view.messages[:cut], view.messages[cut:]
    text = summarise(
        provider,
        render_transcript(old),
        window=budget.window,
        summary_tokens=budget.summary_tokens,
        clock=clock,
        focus=focus,
    )
    if tokens_before is None:
        tokens_before = budget.prompt_tokens + view.tokens
    now = clock.now()
    draft = Message(
        id=new_message_id(now),
        role="summary",
        content=render_summary_content(text),
        created_at=format_timestamp(now),
        model=provider.handle,
    )
    info = CompactionInfo(
        kept_from_line=view.lines[cut],
        kept_from_message_id=kept[0].id,
        messages_compacted=sum(1 for message in old if message.role != "summary"),
        tokens_before=tokens_before,
        tokens_after=budget.prompt_tokens
        + estimate_message_tokens(draft)
        + estimate_messages_tokens(kept),
        trigger=trigger,
    )
    if info.tokens_after >= tokens_before:
        return CompactionSkipped(tokens_before, info.tokens_after, trigger)
    summary = replace(draft, compaction=info)
    line = store.append(summary)[0]
    record_compaction(store, summary)
    return CompactionResult(
        summary, line, info.messages_compacted, info.tokens_before, info.tokens_after, trigger
    )
