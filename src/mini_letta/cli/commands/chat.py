"""`mini-letta chat -p TEXT`: one headless turn (or, with stream-json input, many)."""

from __future__ import annotations

import sys

import click

from mini_letta.cli.options import (
    OUTPUT_FORMAT_CHOICE,
    agent_options,
    context_window_option,
    max_steps_option,
    read_prompt,
)


@click.command()
@click.option("-p", "--prompt", help="The message to send; '-' reads it from standard input.")
@agent_options
@click.option(
    "--output-format",
    type=OUTPUT_FORMAT_CHOICE,
    default="text",
    show_default=True,
    help="How to print the turn.",
)
@max_steps_option
@context_window_option
@click.option(
    "--background-reflection",
    is_flag=True,
    help="Run a triggered reflection in a detached process; the next command shows its outcome.",
)
def chat(
    prompt: str | None,
    agent: str | None,
    conversation: str | None,
    new: bool,
    model: str | None,
    output_format: str,
    max_steps: int,
    context_window: int | None,
    background_reflection: bool,
) -> None:
    """Run one headless turn and print the answer."""
    from mini_letta.cli.headless import ChatSession, SessionRequest, exit_code
    from mini_letta.cli.world import current_world

    if prompt is None:
        raise click.UsageError(
            "chat needs -p TEXT (or -p - to read standard input); "
            "run `mini-letta` with no command for the interactive session"
        )
    text = read_prompt(prompt, sys.stdin)
    request = SessionRequest(
        world=current_world(),
        agent_ref=agent,
        conversation_id=conversation,
        new=new,
        model=model,
        output_format=output_format,  # type: ignore[arg-type]
        max_steps=max_steps,
        context_window=context_window,
        background_reflection=background_reflection,
    )
    code = exit_code(ChatSession(request, sys.stdout, sys.stderr).turn(text))
    if code:
        raise click.exceptions.Exit(code)
