"""`mini-letta chat -p TEXT`: one headless turn (or, with stream-json input, many)."""

from __future__ import annotations

import click

from mini_letta.cli.chat_args import INPUT_FORMATS, ChatArgs, OutputFormat
from mini_letta.cli.options import (
    OUTPUT_FORMAT_CHOICE,
    agent_options,
    base_url_option,
    context_window_option,
    max_steps_option,
    tool_options,
)
from mini_letta.tools.permissions import PermissionMode


@click.command()
@click.option("-p", "--prompt", help="The message to send; '-' reads it from standard input.")
@agent_options
@base_url_option
@tool_options
@click.option(
    "--output-format",
    type=OUTPUT_FORMAT_CHOICE,
    help="How to print the turn: text (default), json, stream-json.",
)
@click.option(
    "--input-format",
    type=click.Choice(INPUT_FORMATS),
    default="text",
    show_default=True,
    help="stream-json: keep running and read one JSON user message per stdin line.",
)
@max_steps_option
@context_window_option
@click.option(
    "--recompile",
    is_flag=True,
    help="Recompile the system prompt from memory as it is now (it is otherwise kept stable).",
)
@click.option(
    "--background-reflection",
    is_flag=True,
    help="Run a triggered reflection in a detached process; the next command shows its outcome.",
)
def chat(
    prompt: str | None,
    agent: str | None,
    conversation: str | None,
    resume: str | None,
    continue_last: bool,
    new: bool,
    model: str | None,
    base_url: str | None,
    tools: str | None,
    allowed_tools: str | None,
    disallowed_tools: str | None,
    permission_mode: PermissionMode,  # click's Choice has checked both
    output_format: OutputFormat | None,
    input_format: str,
    max_steps: int,
    context_window: int | None,
    recompile: bool,
    background_reflection: bool,
) -> None:
    """Run one headless turn and print the answer."""
    from mini_letta.cli.chat_run import run_chat
    from mini_letta.cli.terminal import current_terminal

    _check_input(prompt, input_format == "stream-json", output_format)
    conversation = _resumed(conversation, resume)
    if new and conversation:
        raise click.UsageError(
            "--new and --conversation exclude each other (--new starts a conversation, "
            "--conversation continues one)"
        )
    if continue_last and (new or conversation):
        raise click.UsageError(
            "-c/--continue continues the last conversation: it excludes --new and --conversation"
        )
    args = ChatArgs(
        prompt=prompt,
        agent=agent,
        conversation=conversation,
        continue_last=continue_last,
        new=new,
        model=model,
        base_url=base_url,
        tools=tools,
        allowed_tools=allowed_tools,
        disallowed_tools=disallowed_tools,
        permission_mode=permission_mode,
        output_format=output_format,
        input_format=input_format,
        max_steps=max_steps,
        context_window=context_window,
        recompile=recompile,
        background_reflection=background_reflection,
    )
    code = run_chat(args, current_terminal())
    if code:
        raise click.exceptions.Exit(code)


def _resumed(conversation: str | None, resume: str | None) -> str | None:
    """--conversation ID or -r/--resume ID; -r with no ID picks from a list, which a headless
    turn cannot show (as `claude -p -r` without an ID, it is a usage error)."""
    from mini_letta.cli.options import PICK

    if resume is not None and resume.strip() == PICK:
        raise click.UsageError(
            "-r/--resume without an ID picks from a list in the interactive session "
            "(`mini-letta -r`); with -p give the ID (`mini-letta conversations list`), "
            "or -c for the last conversation"
        )
    if resume is not None and conversation is not None:
        raise click.UsageError("-r/--resume and --conversation both name a conversation; give one")
    return conversation if resume is None else resume.strip()


def _check_input(prompt: str | None, streaming_input: bool, output_format: str | None) -> None:
    if streaming_input and prompt is not None:
        raise click.UsageError("-p and --input-format stream-json exclude each other")
    if streaming_input and output_format not in (None, "stream-json"):
        raise click.UsageError("--input-format stream-json needs --output-format stream-json")
    if prompt is None and not streaming_input:
        raise click.UsageError(
            "chat needs -p TEXT (or -p - to read standard input, or --input-format stream-json); "
            "run `mini-letta` with no command for the interactive session"
        )
