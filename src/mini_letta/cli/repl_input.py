"""Reading the interactive session's input on a terminal with prompt_toolkit.

Enter sends; Esc-Enter or Ctrl-J starts a new line, and a paste keeps its lines. History lives
in the home directory, so it carries across sessions. Typing (or Tab) completes slash commands
from the session's command table (cli/commands/slash.py), with each one's description, then
their arguments through the table's completers, and `@path` for files under the working
directory. Ctrl-C on a line
with text clears it; on an empty line it raises KeyboardInterrupt, so the session can leave on a
second one; Ctrl-O shows the last tool call in full above the prompt. A bottom toolbar shows
whatever the session's status callable returns for the window's width.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mini_letta.home import ensure_dir
from mini_letta.structs import Struct

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer
    from prompt_toolkit.key_binding import KeyBindings

MAX_PATH_COMPLETIONS = 200
Arguments = Callable[[str, str], list[str]]  # (command name, arguments typed) -> candidates


class Command(Protocol):
    """What completion needs of a slash command table's entry."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...


def _no_arguments(name: str, typed: str) -> list[str]:
    return []


class Choice(Struct, frozen=True):
    text: str  # replaces the `replace` characters before the cursor
    replace: int
    display: str
    meta: str = ""


def complete(
    cwd: Path,
    before: str,
    commands: Iterable[Command] = (),
    arguments: Arguments = _no_arguments,
) -> Iterator[Choice]:
    """Slash commands and their arguments at the start of the input; `@path` anywhere,
    relative to `cwd`."""
    if before.startswith("/") and "\n" not in before:
        name, space, typed = before.partition(" ")
        if not space:
            for command in commands:
                if command.name.startswith(name):
                    yield Choice(command.name, len(name), command.name, command.description)
            return
        if not typed.split(" ")[-1].startswith("@"):
            for word in arguments(name, typed):
                yield Choice(word, len(typed), word)
            return
    word = before.split()[-1] if before and not before[-1].isspace() else ""
    if word.startswith("@"):
        yield from _paths(cwd, word[1:])


def _paths(cwd: Path, partial: str) -> Iterator[Choice]:
    folder, _, stem = partial.rpartition("/")
    try:
        entries = sorted(os.scandir(cwd / folder if folder else cwd), key=lambda e: e.name)
    except OSError:
        return
    shown = 0
    for entry in entries:
        if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem):
            continue
        name = entry.name + ("/" if entry.is_dir() else "")
        yield Choice(f"{folder}/{name}" if folder else name, len(partial), name)
        shown += 1
        if shown >= MAX_PATH_COMPLETIONS:
            return


def session_completer(cwd: Path, commands: Iterable[Command], arguments: Arguments) -> Completer:
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document

    class SessionCompleter(Completer):
        def get_completions(self, document: Document, event: CompleteEvent) -> Iterator[Completion]:
            for choice in complete(cwd, document.text_before_cursor, commands, arguments):
                yield Completion(
                    choice.text, -choice.replace, display=choice.display, display_meta=choice.meta
                )

    return SessionCompleter()


def session_keys(on_expand: Callable[[], None] | None = None) -> KeyBindings:
    from prompt_toolkit.application import run_in_terminal
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.key_processor import KeyPressEvent

    keys = KeyBindings()

    if on_expand is not None:
        expand = on_expand

        @keys.add("c-o")
        def _expand(event: KeyPressEvent) -> None:
            run_in_terminal(expand)  # printed above the prompt; what was typed stays

    @keys.add("escape", "enter")
    @keys.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @keys.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return keys


def build_prompt_session(
    history: Path,
    cwd: Path,
    toolbar: Callable[[int], str] | None = None,
    commands: Iterable[Command] = (),
    arguments: Arguments = _no_arguments,
    on_expand: Callable[[], None] | None = None,
    **io: Any,
) -> PromptSession[str]:
    """The session's prompt; `io` passes `input`/`output` through (tests use a pipe). The
    toolbar is given the window's width; Ctrl-O runs `on_expand`."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.application import get_app
    from prompt_toolkit.history import FileHistory

    ensure_dir(history.parent)
    draw = None if toolbar is None else (lambda: toolbar(get_app().output.get_size().columns))
    return PromptSession(
        history=FileHistory(str(history)),
        completer=session_completer(cwd, tuple(commands), arguments),
        complete_while_typing=True,
        key_bindings=session_keys(on_expand),
        bottom_toolbar=draw,
        prompt_continuation="  ",
        **io,
    )
