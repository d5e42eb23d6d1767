"""Options shared by several commands, declared once so their flags and help stay identical."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO, TypeVar

import click

from mini_letta.cli.render import OUTPUT_FORMATS

F = TypeVar("F", bound=Callable[..., object])

OUTPUT_FORMAT_CHOICE = click.Choice(OUTPUT_FORMATS)


def agent_option(func: F) -> F:
    return click.option("--agent", metavar="ID|NAME", help="The agent (default: this project's).")(
        func
    )


def agent_options(func: F) -> F:
    """--agent, --conversation, --new, --model: which agent and conversation a turn uses."""
    func = click.option("--model", metavar="HANDLE", help="Model for this run (mock, openai/…).")(
        func
    )
    func = click.option(
        "--new", is_flag=True, help="Start a new conversation and make it current."
    )(func)
    func = click.option("--conversation", metavar="ID", help="Continue this conversation.")(func)
    return agent_option(func)


def max_steps_option(func: F) -> F:
    return click.option(
        "--max-steps",
        type=click.IntRange(min=1),
        default=20,
        show_default=True,
        help="Most model steps in one turn.",
    )(func)


def read_prompt(prompt: str, stdin: TextIO) -> str:
    """The prompt text; '-' reads standard input. An empty prompt is a usage error."""
    text = stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise click.UsageError("the prompt is empty; give some text with -p (or pipe it with -p -)")
    return text.strip("\n") if prompt == "-" else text


def context_window_option(func: F) -> F:
    return click.option(
        "--context-window",
        type=click.IntRange(min=1),
        metavar="TOKENS",
        help="Context window in tokens for this run (default: the agent's, else the model's).",
    )(func)
