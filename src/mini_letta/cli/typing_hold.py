"""What the user types while a slash command or a turn runs waits, unseen, for the next prompt.

Between prompts the terminal is back in cooked mode: typed text would be echoed raw across the
command's output, and the line discipline would turn Enter into a newline that the prompt then
reads as Ctrl-J (a new line in the input) instead of sending it. While a command runs, input is
held uncooked and unechoed (Ctrl-C still interrupts; an approval prompt or an editor sets its
own modes and gives ours back), so the next prompt receives the keys as typed, Enter included.
Nothing to do when standard input is no terminal, or without termios.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mini_letta.cli.terminal import Terminal


@contextmanager
def held_typing(terminal: Terminal) -> Iterator[None]:
    """Hold typed keys unechoed and uncooked for the body; the terminal's modes come back after.

    Only for the prompt on a terminal: a session whose output is redirected reads plain lines
    in cooked mode, which a held carriage return would not end."""
    stdin = terminal.stdin
    try:
        import termios

        fd = stdin.fileno()
        saved = termios.tcgetattr(fd) if terminal.is_interactive() else None
    except (ImportError, OSError, ValueError, AttributeError):  # Windows, a closed or fake stream
        saved = None
    if saved is None:
        yield
        return
    held = list(saved)
    held[0] = saved[0] & ~termios.ICRNL  # Enter stays a carriage return: the prompt sends it
    held[3] = saved[3] & ~(termios.ECHO | termios.ICANON)  # ISIG kept: Ctrl-C interrupts
    chars = list(saved[6])
    chars[termios.VMIN], chars[termios.VTIME] = 1, 0
    held[6] = chars
    termios.tcsetattr(fd, termios.TCSANOW, held)  # TCSANOW: nothing typed is thrown away
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
