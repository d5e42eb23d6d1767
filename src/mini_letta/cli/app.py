"""The click command tree: the root group, its commands, and `--help`/`--version` options
that print on the invocation's terminal (cli/terminal.py) rather than on `sys.stdout`."""

from __future__ import annotations

import click

from mini_letta import __version__
from mini_letta.cli.commands import COMMANDS
from mini_letta.cli.terminal import current_terminal

VERSION_LINE = f"mini-letta {__version__}"


def _show_help(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        current_terminal().echo(ctx.get_help())
        ctx.exit()


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        current_terminal().echo(VERSION_LINE)
        ctx.exit()


def _help_option() -> click.Option:
    return click.Option(
        ["-h", "--help"],
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_show_help,
        help="Show this message and exit.",
    )


# click's own help option always prints on sys.stdout; ours (added to every command below)
# prints on the terminal, so the built-in one is switched off for the whole tree.
@click.group(invoke_without_command=True, context_settings={"help_option_names": []})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version and exit.",
)
@click.pass_context
def app(ctx: click.Context) -> None:
    """mini-letta: a memory-first, stateful agent for the terminal."""
    if ctx.invoked_subcommand is None:
        from mini_letta.cli.commands.interactive import open_interactive

        open_interactive(ctx)


def _add_help_options(command: click.Command) -> None:
    if any("--help" in getattr(param, "opts", ()) for param in command.params):
        return  # an alias: the same command under a second name
    command.params.append(_help_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _add_help_options(sub)


for _command in COMMANDS:
    app.add_command(_command)
_add_help_options(app)
