"""The root of the click command tree: the `mini-letta` group, its commands, and the
`--help`/`--version` options that print on the invocation's terminal (cli/terminal.py) rather
than on `sys.stdout`."""

from __future__ import annotations

import importlib

import click

from mini_letta.cli import VERSION_LINE
from mini_letta.cli.commands import COMMANDS
from mini_letta.cli.help_option import add_help_options
from mini_letta.cli.options import agent_option, model_short_option, resume_option
from mini_letta.cli.session_start import SessionStart
from mini_letta.cli.terminal import current_terminal


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        current_terminal().echo(VERSION_LINE)
        ctx.exit()


class _LazyGroup(click.Group):
    """The root group: a command's module is imported when the command is first looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else self.commands.get(cmd_name)


# click's own help option always prints on sys.stdout; ours (added to every command as it is
# loaded) prints on the terminal, so the built-in one is switched off for the whole tree.
@click.group(
    cls=_LazyGroup, invoke_without_command=True, context_settings={"help_option_names": []}
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version and exit.",
)
@agent_option
@click.option("--new", is_flag=True, help="Start the session in a new conversation.")
@model_short_option("Model for this session only (an alias such as sonnet, or PROVIDER/MODEL).")
@click.option(
    "-c", "--continue", "continue_last", is_flag=True, help="Continue the last conversation."
)
@resume_option
@click.pass_context
def app(
    ctx: click.Context,
    agent: str | None,
    new: bool,
    model: str | None,
    continue_last: bool,
    resume: str | None,
) -> None:
    """mini-letta: a memory-first, stateful agent for the terminal.

    With no command, the interactive session (these options start it); `mini-letta -p TEXT
    [OPTIONS]` is one headless turn, as `chat -p TEXT`."""
    start = SessionStart(agent, new, model, resume)
    if ctx.invoked_subcommand is not None:
        if start != SessionStart() or continue_last:
            raise click.UsageError(
                "--agent, --new, -m, -c and -r before a command are the interactive "
                "session's; put them after the command (`mini-letta chat --agent NAME -p …`)"
            )
        return
    if continue_last and (new or resume is not None):
        raise click.UsageError(
            "-c/--continue continues the last conversation: not with --new or -r"
        )
    if new and resume is not None:
        raise click.UsageError("--new starts a conversation and -r resumes one; give one")
    from mini_letta.cli.commands.interactive import open_interactive

    open_interactive(ctx, start)


add_help_options(app)


def load_command(name: str) -> click.Command:
    """The top-level command `name` (a key of COMMANDS), imported on first use, with the
    terminal's help option; run it alone with `help_option_names=[]` in its context."""
    if name not in app.commands:
        module, _, attribute = COMMANDS[name].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        add_help_options(command)
        app.add_command(command, name)
    return app.commands[name]
