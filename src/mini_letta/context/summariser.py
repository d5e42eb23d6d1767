"""The summariser call behind compaction: prompt, transcript, and the overflow ladder.

The messages to summarise become one plain-text transcript (`[role] text`, continuation lines
indented by two spaces, tool output capped), sent as one user message with a summary prompt to
the agent's own model (`purpose="summary"`). A previous summary is input text (`[earlier
summary] ...`, without its header), so a summary of a summary never nests. The transcript is cut
in the middle to fit the window before the call, and cut further each time the model still
reports a context overflow.
"""

from __future__ import annotations

from mini_letta.clock import Clock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.errors import ContextOverflowError, ContextWindowTooSmallError, ProviderError
from mini_letta.ids import new_message_id
from mini_letta.llm.base import ModelRequest, Provider, collect
from mini_letta.llm.tokens import MESSAGE_OVERHEAD, estimate_tokens

SUMMARY_HEADER = "(Earlier messages of this conversation were compacted to fit the context window.)"
TRANSCRIPT_INTRO = "Transcript of the messages to summarise:"
TRANSCRIPT_OUTRO = "Write the summary now."
TOOL_OUTPUT_CAP = 2000  # characters of one tool result in the transcript
ARGUMENTS_CAP = 300  # characters of one tool call's arguments
MIN_TRANSCRIPT_TOKENS = 32
_SLACK = 0.9  # our estimate is not the model's tokenizer: leave a tenth of the room unused
_LADDER = (0.75, 0.5, 0.35, 0.25, 0.15, 0.1)

_PROMPT = """You compact a conversation so that it fits the model's context window. The
transcript holds its oldest messages, which are about to leave the context; your summary
replaces them. If the transcript starts with an [earlier summary], fold it into yours: do not
quote it or nest it.

Write plain text in these parts, leaving out any that would be empty:
1. Goals: what the user wants, in their words where possible.
2. Decisions and preferences the user stated.
3. Important identifiers, verbatim: file paths, names, ids, commands, URLs, numbers.
4. Errors met and how they were fixed.
5. Current state: what is done and what is still open.
6. Lookup hints: what to search for in the full log or in memory for details.

Use the language of the conversation. Keep it under about {tokens} tokens."""


def build_summary_prompt(summary_tokens: int) -> str:
    return _PROMPT.format(tokens=summary_tokens)


def raw_summary(message: Message) -> str:
    """A summary message's text without the header that introduces it to the chat model."""
    return message.content.removeprefix(SUMMARY_HEADER).lstrip("\n")


def render_summary_content(summary: str) -> str:
    return f"{SUMMARY_HEADER}\n{summary}"


def render_transcript(messages: tuple[Message, ...] | list[Message]) -> str:
    entries = [entry for message in messages if (entry := _entry(message))]
    return "\n".join(entries)


def _entry(message: Message) -> str:
    if message.role == "summary":
        return _lines("earlier summary", raw_summary(message))
    if message.role == "tool":
        tag = f"tool {message.name or 'result'}" + (" error" if message.is_error else "")
        return _lines(tag, _cap(message.content, TOOL_OUTPUT_CAP))
    if message.role == "assistant":
        text = message.content
        if message.tool_calls:
            calls = ", ".join(
                f"{call.name}({_cap(call.arguments, ARGUMENTS_CAP)})" for call in message.tool_calls
            )
            text = f"{text} -> {calls}" if text else f"-> {calls}"
        return _lines("assistant", text) if text.strip() else ""
    return _lines("user", message.content) if message.content.strip() else ""


def _lines(tag: str, text: str) -> str:
    first, *rest = text.split("\n")
    return "\n".join([f"[{tag}] {first}".rstrip(), *("  " + line for line in rest)])


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}… [{len(text) - 2 * half} characters left out] …{text[-half:]}"


def middle_truncate(text: str, max_tokens: int) -> str:
    """`text` cut in the middle (40% head, 60% tail) until its estimate fits `max_tokens`."""
    if estimate_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)
    best = _cut(text, 0)
    while low <= high:  # the longest cut that fits; the estimate grows with the kept length
        keep = (low + high) // 2
        candidate = _cut(text, keep)
        if estimate_tokens(candidate) <= max_tokens:
            best, low = candidate, keep + 1
        else:
            high = keep - 1
    return best


def _cut(text: str, keep: int) -> str:
    head = keep * 2 // 5
    tail = keep - head
    dropped = len(text) - keep
    marker = f"\n[… {dropped} characters left out to fit the context window …]\n"
    return text[:head] + marker + (text[len(text) - tail :] if tail else "")


def clip_to_tokens(text: str, max_tokens: int) -> str:
    """The head of `text` that fits `max_tokens`, marked as clipped when anything was cut."""
    if estimate_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens(text[:mid]) <= max_tokens:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + " … [summary clipped to fit]"


def transcript_budget(window: int, summary_tokens: int) -> int:
    """Tokens the transcript may use so the summary request fits the window."""
    fixed = estimate_tokens(build_summary_prompt(summary_tokens)) + 2 * MESSAGE_OVERHEAD
    fixed += estimate_tokens(TRANSCRIPT_INTRO + TRANSCRIPT_OUTRO) + 4
    return int((window - summary_tokens) * _SLACK) - fixed


def summarise(
    provider: Provider,
    transcript: str,
    *,
    window: int,
    summary_tokens: int,
    clock: Clock,
    focus: str | None = None,
) -> str:
    """The model's summary of `transcript`; retried on shorter transcripts while it overflows.

    `focus` (the user's `/compact FOCUS`) asks the summariser to keep what matters for it.

    Raises ContextWindowTooSmallError when not even a minimal transcript fits the window,
    ContextOverflowError when every rung of the ladder overflowed, and other ProviderErrors as
    they come.
    """
    outro = focus_outro(focus)
    extra = estimate_tokens(outro) if outro != TRANSCRIPT_OUTRO else 0
    budget = transcript_budget(window, summary_tokens) - extra
    if budget < MIN_TRANSCRIPT_TOKENS:
        raise ContextWindowTooSmallError(
            window, window - budget + MIN_TRANSCRIPT_TOKENS, "summarising the conversation"
        )
    base = min(budget, estimate_tokens(transcript))
    tried: set[str] = set()
    for share in (1.0, *_LADDER):
        text = middle_truncate(transcript, max(MIN_TRANSCRIPT_TOKENS, int(base * share)))
        if text in tried:
            continue
        tried.add(text)
        try:
            return _ask(provider, text, summary_tokens, clock, outro)
        except ContextOverflowError:
            continue
    raise ContextOverflowError(
        f"{provider.handle} reported a context overflow even for a transcript of "
        f"{estimate_tokens(min(tried, key=len))} tokens to summarise; compaction was not applied"
    )


def focus_outro(focus: str | None) -> str:
    """The request's closing line, with the user's focus when there is one."""
    text = (focus or "").strip()
    if not text:
        return TRANSCRIPT_OUTRO
    return f"{TRANSCRIPT_OUTRO} Keep above all what matters for: {text}"


def _ask(provider: Provider, transcript: str, summary_tokens: int, clock: Clock, outro: str) -> str:
    now = clock.now()
    message = Message(
        id=new_message_id(now),
        role="user",
        content=f"{TRANSCRIPT_INTRO}\n\n{transcript}\n\n{outro}",
        created_at=format_timestamp(now),
    )
    request = ModelRequest(
        system=build_summary_prompt(summary_tokens),
        messages=(message,),
        purpose="summary",
        max_output_tokens=summary_tokens,
    )
    response = collect(provider.stream(request))
    text = response.text.strip()
    if response.stop_reason in ("error", "interrupted") or not text:
        raise ProviderError(
            f"{provider.handle} returned no usable summary (stop reason {response.stop_reason}); "
            "compaction was not applied"
        )
    return clip_to_tokens(text, summary_tokens + summary_tokens // 2)
