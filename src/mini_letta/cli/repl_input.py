"""Reading the interactive session's input on a terminal with prompt_toolkit.

Enter sends; Esc-Enter or Ctrl-J starts a new line, and a paste keeps its lines. History lives
in the home directory, so it carries across sessions. Tab (or typing) completes slash commands,
with each one's description, and `@path` for files under the working directory. Ctrl-C on a line
with text clears it; on an empty line it raises KeyboardInterrupt, so the session can leave on a
second one. A bottom toolbar shows whatever the session's status callable returns.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from mini_letta.cli.commands.catalog import CATALOG, SlashInfo
from mini_letta.home import ensure_dir

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings

MAX_PATH_COMPLETIONS = 200


class SessionCompleter(Completer):
    """Slash commands at the start of the input; `@path` anywhere, relative to `cwd`."""

    def __init__(self, cwd: Path, catalog: Iterable[SlashInfo] = CATALOG) -> None:
        self.cwd = cwd
        self.catalog = tuple(catalog)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for info in self.catalog:
                if info.name.startswith(before):
                    yield Completion(info.name, -len(before), display_meta=info.description)
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if word.startswith("@"):
            yield from self._paths(word[1:])

    def _paths(self, partial: str) -> Iterator[Completion]:
        folder, _, stem = partial.rpartition("/")
        base = (self.cwd / folder) if folder else self.cwd
        try:
            entries = sorted(os.scandir(base), key=lambda entry: entry.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem):
                continue
            slash = "/" if entry.is_dir() else ""
            text = f"{folder}/{entry.name}{slash}" if folder else f"{entry.name}{slash}"
            yield Completion(text, -len(partial), display=entry.name + slash)
            shown += 1
            if shown >= MAX_PATH_COMPLETIONS:
                return


def session_keys() -> KeyBindings:
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.key_processor import KeyPressEvent

    keys = KeyBindings()

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
    toolbar: Callable[[], str] | None = None,
    **io: Any,
) -> PromptSession[str]:
    """The session's prompt; `io` passes `input`/`output` through (tests use a pipe)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    ensure_dir(history.parent)
    return PromptSession(
        history=FileHistory(str(history)),
        completer=SessionCompleter(cwd),
        complete_while_typing=True,
        key_bindings=session_keys(),
        bottom_toolbar=toolbar,
        prompt_continuation="  ",
        **io,
    )
