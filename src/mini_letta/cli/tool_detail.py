"""A tool call in full: what `/expand` and Ctrl-O show behind a session's compact tool line.

The calls come from the conversation's log (the last turn: everything after its last user
message), not from what this process saw, so they are there after `/resume` or a restart and
are exactly what the model was given. Numbers are the calls' places in the turn, as on the
compact lines (`⚙ [2] Bash: ...`). Nothing is cut: long lines are wrapped to the terminal.
"""

from __future__ import annotations

import json

from mini_letta.cli.fit import fit_line, wrap_line
from mini_letta.conversations.messages import Message, ToolCall
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import MiniLettaError
from mini_letta.structs import Struct
from mini_letta.tools.base import ToolResult, describe_call, parse_arguments

INDENT = "    "


class CallDetail(Struct, frozen=True):
    number: int  # 1-based place in the turn
    call: ToolCall
    result: ToolResult | None  # None: the turn ended (Ctrl-C) before the call finished


def load_last_turn_calls(store: ConversationStore) -> list[CallDetail]:
    """The tool calls of the conversation's last turn, in order, each with its result."""
    results: dict[str, Message] = {}
    calls: list[ToolCall] = []
    for _line, message in store.iter_reverse():
        if message.role == "user":
            break
        if message.role == "tool" and message.tool_call_id:
            results[message.tool_call_id] = message
        elif message.role == "assistant":
            calls[:0] = message.tool_calls
    details = []
    for number, call in enumerate(calls, 1):
        found = results.get(call.id)
        result = None if found is None else ToolResult(found.content, found.is_error)
        details.append(CallDetail(number, call, result))
    return details


def render_call_detail(detail: CallDetail, width: int | None) -> list[str]:
    """The call's header line, each argument (a multi-line text as a block), then its output."""
    try:
        args = parse_arguments(detail.call.arguments)
        what = describe_call(detail.call.name, args)
    except MiniLettaError:
        args, what = {}, detail.call.name
    result = detail.result
    mark = "…" if result is None else ("✗" if result.is_error else "✓")
    head = fit_line(f"  ⚙ [{detail.number}] {what}", None if width is None else width - 2)
    lines = [f"{head} {mark}"]  # the arguments below say in full what the head may cut
    if args:
        lines.append("  arguments:")
        for key, value in args.items():
            lines += _field(key, value)
    elif detail.call.arguments.strip():
        lines += ["  arguments (not JSON):", *_block(detail.call.arguments)]
    if result is None:
        lines.append("  no result: the turn was interrupted before it finished")
    else:
        count = len(result.content.splitlines())
        label = "error" if result.is_error else "output"
        lines.append(f"  {label} ({count} line{'' if count == 1 else 's'}):")
        lines += _block(result.content) if count else []
    return [row for line in lines for row in wrap_line(line, width)]


def _field(key: str, value: object) -> list[str]:
    if isinstance(value, str) and "\n" in value:
        return [f"{INDENT}{key}:", *_block(value, INDENT * 2)]
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [f"{INDENT}{key}: {shown}"]


def _block(text: str, indent: str = INDENT) -> list[str]:
    return [f"{indent}{line}".rstrip() for line in text.splitlines()]


def pick_calls(details: list[CallDetail], which: str) -> list[CallDetail]:
    """`""` the last call, `all` every one, `N` the Nth; a bad choice is a one-line error."""
    if not details:
        raise MiniLettaError("no tool calls in the last turn")
    if not which:
        return details[-1:]
    if which == "all":
        return details
    if not which.isdigit() or not 1 <= int(which) <= len(details):
        raise MiniLettaError(
            f"no tool call {which} in the last turn; pick 1 to {len(details)} or `all`"
        )
    return [details[int(which) - 1]]
