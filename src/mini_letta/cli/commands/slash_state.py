"""What a slash command acts on: the interactive session's current ChatSession and its request.

Commands that switch model, agent, conversation or permission mode build a new ChatSession
from a changed request; the old one stays when the new one cannot be built (a bad model name,
an unknown agent), so a mistyped switch never loses the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from mini_letta.cli.terminal import current_terminal, echo_wrapped
from mini_letta.errors import MiniLettaError
from mini_letta.structs import Struct, replace

if TYPE_CHECKING:
    from mini_letta.cli.headless import ChatSession, SessionRequest
    from mini_letta.cli.repl_watch import ReflectionWatch
    from mini_letta.cli.terminal import Terminal


class SlashState(Struct):
    request: SessionRequest
    session: ChatSession
    watch: ReflectionWatch
    read_line: Callable[[str], str]
    terminal: Terminal

    def switch(self, request: SessionRequest) -> bool:
        """Continue in a session built from `request`; False (and a message) when it fails."""
        from mini_letta.cli.headless import ChatSession

        try:
            session = ChatSession(request, self.terminal.stdout, self.terminal.stderr)
        except MiniLettaError as exc:
            echo_wrapped(f"mini-letta: {exc}", err=True)
            return False
        self.leave(next_conversation=session.store.conversation_id)
        self.session = session
        # Pin what was resolved, so a later switch keeps this agent and conversation.
        self.request = replace(
            request,
            agent_ref=session.agent.id,
            conversation_id=session.store.conversation_id,
            new=False,
        )
        self.watch.agent_id = session.agent.id
        return True

    def leave(self, next_conversation: str | None = None) -> None:
        """Close the session; its conversation goes too if it holds no message, unless the
        next session continues it (a /model or /permissions switch) or a reflection this
        session started may still read it (`/dream` on an empty conversation)."""
        from mini_letta.workspace import leave_conversation

        self.session.close()
        store = self.session.store
        if store.conversation_id != next_conversation and not self.watch.running:
            leave_conversation(self.request.world, store)


def run_click(command: click.Command, argv: list[str], prog: str) -> None:
    """Run a CLI command in the session: the same output and the same errors, no exit."""
    from mini_letta.cli.help_option import add_help_options

    terminal = current_terminal()
    add_help_options(command)
    try:
        command.main(
            args=argv,
            prog_name=prog,
            standalone_mode=False,
            help_option_names=[],  # the command carries the terminal's own --help
        )
    except click.ClickException as exc:
        exc.show(file=terminal.stderr)
    except (click.exceptions.Exit, click.Abort):
        pass
    except MiniLettaError as exc:
        echo_wrapped(f"mini-letta: {exc}", err=True)


def split_args(args: str) -> list[str] | None:
    """Shell-like words of a command's arguments; None (and a message) for an unclosed quote."""
    import shlex

    try:
        return shlex.split(args)
    except ValueError as exc:
        echo_wrapped(f"mini-letta: {exc}", err=True)
        return None
