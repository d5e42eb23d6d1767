"""`chat`'s parameters, and the plain form of `chat -p TEXT` read without click.

A headless turn is the command run most often, and click is about a sixth of its start-up.
`plain_chat_args` reads only the plain form: `chat`, then `-p/--prompt TEXT` and any of
`--agent`, `--conversation`, `--output-format`, `--new`, `--recompile`,
`--background-reflection`, each once, as separate words. Anything else, including every
input click would reject and every value that starts with `-`, goes to click as before, so
the plain form never decides what click would decide differently
(tests/unit/cli/test_chat_args.py holds the two parses equal).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Literal, TextIO

from mini_letta.structs import Struct

if TYPE_CHECKING:
    from mini_letta.tools.permissions import PermissionMode

OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")
INPUT_FORMATS = ("text", "stream-json")
MAX_STEPS = 20  # the turn loop's DEFAULT_MAX_STEPS, which a test holds equal


class ChatArgs(Struct, frozen=True):
    """`chat`'s parameters as click passes them (defaults as its options declare)."""

    prompt: str | None = None
    agent: str | None = None
    conversation: str | None = None
    continue_last: bool = False  # -c: the project's last conversation, which is the default
    new: bool = False
    model: str | None = None
    base_url: str | None = None
    tools: str | None = None
    allowed_tools: str | None = None
    disallowed_tools: str | None = None
    permission_mode: PermissionMode = "default"
    output_format: OutputFormat | None = None
    input_format: str = "text"
    max_steps: int = MAX_STEPS
    context_window: int | None = None
    recompile: bool = False
    background_reflection: bool = False


# The plain form's options and the parameter each sets: those that take a word, and flags.
_VALUE_OPTIONS = {
    "-p": "prompt",
    "--prompt": "prompt",
    "--agent": "agent",
    "--conversation": "conversation",
    "--output-format": "output_format",
}
_FLAGS = {
    "--new": "new",
    "--recompile": "recompile",
    "--background-reflection": "background_reflection",
}


def plain_chat_args(argv: list[str]) -> ChatArgs | None:
    """`argv` (without the program name) as chat's parameters when it is the plain form of
    `chat -p TEXT`; None for anything else, which click parses."""
    if not argv or argv[0] != "chat":
        return None
    given: dict[str, str | bool] = {}
    words = iter(argv[1:])
    for word in words:
        value: str | bool
        if word in _FLAGS:
            name, value = _FLAGS[word], True
        elif word in _VALUE_OPTIONS:
            name = _VALUE_OPTIONS[word]
            text = next(words, None)
            if text is None or text.startswith("-") or not text.strip():
                return None  # missing, empty, stdin (`-p -`), or a word click reads its own way
            if name == "output_format" and text not in OUTPUT_FORMATS:
                return None
            value = text
        else:
            return None
        if name in given:
            return None
        given[name] = value
    if "prompt" not in given or ("new" in given and "conversation" in given):
        return None
    return ChatArgs(**given)  # type: ignore[arg-type]


def read_prompt(prompt: str, stdin: TextIO) -> str:
    """The prompt text; '-' reads standard input. An empty prompt is a usage error.

    Bytes that are not UTF-8 (in argv or on stdin) become U+FFFD, with a warning: a pasted log
    with one stray byte is still worth sending, and the record stays valid UTF-8.
    """
    text = lenient_stdin(stdin).read() if prompt == "-" else prompt
    if not text.strip():
        import click

        raise click.UsageError("the prompt is empty; give some text with -p (or pipe it with -p -)")
    from mini_letta.storage.text import clean_text

    cleaned = clean_text(text)
    if cleaned != text:
        from mini_letta.cli.terminal import echo

        echo(
            "mini-letta: warning: the prompt is not valid UTF-8; "
            "undecodable bytes were replaced with U+FFFD",
            err=True,
        )
    return cleaned.strip("\n") if prompt == "-" else cleaned


def lenient_stdin(stdin: TextIO) -> TextIO:
    """Standard input that never fails to decode: bytes that are not UTF-8 come through as
    lone surrogates (which `clean_text` turns into U+FFFD) instead of UnicodeDecodeError."""
    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    return stdin


def parse_tool_flag(value: str | None, flag: str) -> tuple[str, ...] | None:
    """A comma-separated tool list from a flag; an unknown name is a usage error (exit 2)."""
    if value is None:
        return None
    from mini_letta.tools.registry import parse_tool_names, split_tool_list

    return parse_tool_names(split_tool_list(value), flag)
