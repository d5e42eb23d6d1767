"""Pick a conversation from a numbered list: `/resume` with no ID, and `mini-letta -r` with no
ID on a terminal (as `claude -r` opens its picker). Each row shows the title, when the last
message was and how many messages it holds; the most recent come first, at most `SHOWN`."""

from __future__ import annotations

from collections.abc import Callable

from mini_letta.cli.fit import fit_line, text_columns
from mini_letta.cli.terminal import echo, echo_wrapped
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home

SHOWN = 20  # rows in the picker; older conversations are resumed by id


def pick_conversation(
    home: Home,
    agent_id: str,
    current: str | None,
    read_line: Callable[[str], str],
    width: int | None,
) -> str | None:
    """The id picked, or None (nothing to pick, cancelled, or a number out of range: each
    said in one line)."""
    from mini_letta.conversations.registry import list_conversations

    found = list_conversations(home, agent_id)
    if not found:
        echo_wrapped("No conversations yet.", err=True)
        return None
    shown = found[:SHOWN]
    for number, conv in enumerate(shown, 1):
        mark = "*" if conv.id == current else " "
        count = ConversationStore(agent_id, conv.id, home).count()
        when = conv.updated_at[:16].replace("T", " ")
        title = conv.title or "(untitled)"
        row = f"{number:>3}{mark} {when}  {count:>4} msgs  {title}  {conv.id}"
        if width is not None and text_columns(row) > width:  # the number picks; the id goes
            row = fit_line(f"{number:>3}{mark} {when}  {count:>4} msgs  {title}", width)
        echo(row)
    if len(found) > SHOWN:
        echo_wrapped(
            f"({len(found) - SHOWN} older: `mini-letta conversations list`, then -r ID)", err=True
        )
    try:
        answer = read_line("Resume which (number, empty to cancel)? ").strip()
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if not answer:
        return None
    if not answer.isdigit() or not 1 <= int(answer) <= len(shown):
        echo_wrapped(
            f"mini-letta: no conversation numbered {answer}; pick 1 to {len(shown)}", err=True
        )
        return None
    return shown[int(answer) - 1].id


RECENT = 4  # messages shown on resuming
RECENT_CHARS = 100  # each on one line, cut here when the output is no terminal


def recent_lines(store: ConversationStore, width: int | None) -> list[str]:
    """The conversation's last few said things (the user's and the agent's words, tool traffic
    left out), each on one line and cut to fit, to see where it stopped."""
    said = [
        message
        for _line, message in store.tail(RECENT * 4)
        if message.role in ("user", "assistant") and message.content.strip()
    ][-RECENT:]
    lines = []
    for message in said:
        who = "you" if message.role == "user" else "agent"
        text = " ".join(message.content.split())
        row = f"  {who}: {text}"
        if width is not None:
            row = fit_line(row, width)
        elif len(row) > RECENT_CHARS:
            row = row[: RECENT_CHARS - 1] + "…"
        lines.append(row)
    return lines


def announce_resumed(store: ConversationStore, width: int | None) -> None:
    """`Resumed conversation …`, then its last few messages, on stderr."""
    echo_wrapped(
        f"Resumed conversation {store.conversation_id} ({store.count()} messages).", err=True
    )
    for line in recent_lines(store, width):
        echo(line, err=True)
