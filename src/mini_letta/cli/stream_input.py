"""`chat --input-format stream-json`: one process, one user message per stdin line.

Each line is a JSON string, or an object `{"type": "user", "content": …}` (also the SDK shape
`{"type": "user", "message": {"role": "user", "content": …}}`), where content is a string or a
list of `{"type": "text", "text": …}` parts. Each message is answered with the turn's events and
a result line on stdout; a bad line gets an `error` event naming its line number and the
process goes on; blank lines are skipped; end of input ends the process.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mini_letta.cli.headless import ChatSession
from mini_letta.errors import MiniLettaError

SHAPE = '{"type": "user", "content": "..."}'


class InputLineError(ValueError):
    pass


def parse_input_line(line: str) -> str:
    """The user text of one input line; raises InputLineError saying what is wrong."""
    try:
        data: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputLineError(
            f"invalid JSON ({exc.msg} at column {exc.colno}); send {SHAPE}"
        ) from exc
    if isinstance(data, str):
        return _nonempty(data)
    if not isinstance(data, dict):
        raise InputLineError(f"expected a JSON object like {SHAPE}")
    if data.get("type", "user") != "user":
        raise InputLineError(f"unsupported message type {data.get('type')!r}; only user messages")
    if "content" in data:
        return _nonempty(_content_text(data["content"]))
    message = data.get("message")
    if isinstance(message, dict) and "content" in message:
        return _nonempty(_content_text(message["content"]))
    raise InputLineError(f"the message has no content; send {SHAPE}")


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                text = part.get("text")
                if not isinstance(text, str):
                    raise InputLineError('a text part needs a string "text"')
                parts.append(text)
            else:
                raise InputLineError('content parts must be {"type": "text", "text": "..."}')
        return "\n".join(parts)
    raise InputLineError("content must be a string or a list of text parts")


def _nonempty(text: str) -> str:
    if not text.strip():
        raise InputLineError("the message is empty")
    return text


def run_stream_input(session: ChatSession, lines: Iterable[str]) -> int:
    """Answer every input line until end of input, or until nobody reads the answers (the
    turn that found stdout gone is still recorded); returns the exit code (0)."""
    for number, line in enumerate(lines, start=1):
        if session.renderer.lost_output is not None:
            break
        if not line.strip():
            continue
        try:
            text = parse_input_line(line)
        except InputLineError as exc:
            _error(session, number, str(exc))
            continue
        try:
            session.turn(text)
        except MiniLettaError as exc:  # e.g. the conversation stayed locked; the next line may work
            _error(session, number, str(exc))
    return 0


def _error(session: ChatSession, number: int, message: str) -> None:
    session.renderer.notice(
        "error", f"mini-letta: input line {number}: {message}", {"line": number, "message": message}
    )
