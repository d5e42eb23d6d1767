"""`mini-letta chat -p TEXT`: one headless turn (or, with stream-json input, many).

The options are declared once, in cli/chat_args.py `CHAT_OPTIONS`; the plain `chat -p TEXT`
reads the same table without click."""

from __future__ import annotations

from typing import Any

import click

from mini_letta.cli.chat_args import CHAT_OPTIONS, chat_args, usage_problem
from mini_letta.cli.options import click_options


@click.command()
@click_options(CHAT_OPTIONS)
def chat(**params: Any) -> None:
    """Run one headless turn and print the answer."""
    from mini_letta.cli.chat_run import run_chat
    from mini_letta.cli.terminal import current_terminal

    args = chat_args(params)
    problem = usage_problem(args)
    if problem is not None:
        raise click.UsageError(problem)
    code = run_chat(args, current_terminal())
    if code:
        raise click.exceptions.Exit(code)
