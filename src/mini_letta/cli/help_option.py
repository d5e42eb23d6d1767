"""The `-h/--help` every command carries: it prints on the invocation's terminal
(cli/terminal.py), where click's own help option would print on `sys.stdout`."""

from __future__ import annotations

import click

from mini_letta.cli.terminal import current_terminal


def add_help_options(command: click.Command) -> None:
    """Give `command` (and its subcommands) a `-h/--help` that prints on the terminal; run it
    in a context with `help_option_names=[]` so click adds no second one of its own."""
    if any("--help" in getattr(param, "opts", ()) for param in command.params):
        return  # done already (an alias is the same command under a second name)
    command.params.append(
        click.Option(
            ["-h", "--help"],
            is_flag=True,
            expose_value=False,
            is_eager=True,
            callback=_show_help,
            help="Show this message and exit.",
        )
    )
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_help_options(sub)


def _show_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        current_terminal().echo(ctx.get_help())
        ctx.exit()
