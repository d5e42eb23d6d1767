"""Reflection slash commands of the interactive session: /reflect, /dream, /sleeptime.

`/reflect [instruction]` (alias `/dream`) reflects on the current conversation now, in a
background worker the session watches, so the user keeps typing; the trigger
setting and the Windows switch do not apply. `/sleeptime [flags]` is `mini-letta sleeptime`
for the session's agent: the same flags, output and errors.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from mini_letta.cli.terminal import current_terminal, echo

if TYPE_CHECKING:
    from mini_letta.cli.headless import ChatSession
    from mini_letta.cli.repl_watch import ReflectionWatch

SlashCommand = Callable[["ChatSession", "ReflectionWatch", str], None]

HELP_LINES = """  /reflect [TEXT]   reflect on this conversation now, in the background
  /dream [TEXT]     the same as /reflect
  /sleeptime [...]  show or change when reflection runs (--trigger, --steps, --merge, ...)"""


def run_slash_command(line: str, session: ChatSession, watch: ReflectionWatch) -> bool:
    """Run `line` if it is one of these commands; False if it is not."""
    name, _, rest = line.partition(" ")
    command = SLASH_COMMANDS.get(name)
    if command is None:
        return False
    command(session, watch, rest.strip())
    return True


def _reflect(session: ChatSession, watch: ReflectionWatch, instruction: str) -> None:
    from mini_letta.cli.background import spawn_reflection_worker

    proc = spawn_reflection_worker(
        session.request.world,
        session.agent.id,
        session.store.conversation_id,
        "manual",
        instruction or None,
    )
    watch(proc)
    echo("  ☾ reflecting in the background; the outcome appears when it is done.", err=True)


def _sleeptime(session: ChatSession, watch: ReflectionWatch, args: str) -> None:
    from mini_letta.cli.commands.sleeptime import sleeptime
    from mini_letta.cli.terminal import add_help_options
    from mini_letta.errors import MiniLettaError

    try:
        argv = shlex.split(args)
        if "--agent" not in argv:
            argv += ["--agent", session.agent.id]
        add_help_options(sleeptime)
        sleeptime.main(
            args=argv,
            prog_name="/sleeptime",
            standalone_mode=False,
            obj=current_terminal(),
            help_option_names=[],  # the command carries the terminal's own --help
        )
    except ValueError as exc:  # shlex: an unclosed quote
        echo(f"mini-letta: /sleeptime: {exc}", err=True)
    except click.ClickException as exc:
        exc.show(file=current_terminal().stderr)
    except MiniLettaError as exc:
        echo(f"mini-letta: {exc}", err=True)


SLASH_COMMANDS: dict[str, SlashCommand] = {
    "/reflect": _reflect,
    "/dream": _reflect,
    "/sleeptime": _sleeptime,
}
