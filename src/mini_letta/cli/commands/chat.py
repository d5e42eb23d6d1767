"""`mini-letta chat -p TEXT`: one headless turn (or, with stream-json input, many)."""

from __future__ import annotations

import click

from mini_letta.cli.options import (
    OUTPUT_FORMAT_CHOICE,
    agent_options,
    base_url_option,
    context_window_option,
    max_steps_option,
    parse_tool_flag,
    read_prompt,
    tool_options,
)

INPUT_FORMATS = ("text", "stream-json")


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
    new: bool,
    model: str | None,
    base_url: str | None,
    tools: str | None,
    allowed_tools: str | None,
    disallowed_tools: str | None,
    permission_mode: str,
    output_format: str | None,
    input_format: str,
    max_steps: int,
    context_window: int | None,
    recompile: bool,
    background_reflection: bool,
) -> None:
    """Run one headless turn and print the answer."""
    from mini_letta.cli.headless import ChatSession, SessionRequest, exit_code
    from mini_letta.cli.terminal import current_terminal
    from mini_letta.cli.world import current_world

    streaming_input = input_format == "stream-json"
    _check_input(prompt, streaming_input, output_format)
    if new and conversation:
        raise click.UsageError(
            "--new and --conversation exclude each other (--new starts a conversation, "
            "--conversation continues one)"
        )
    terminal = current_terminal()
    text = read_prompt(prompt, terminal.stdin) if prompt is not None else ""
    request = SessionRequest(
        world=current_world(),
        agent_ref=agent,
        conversation_id=conversation,
        new=new,
        model=model,
        output_format=output_format or ("stream-json" if streaming_input else "text"),  # type: ignore[arg-type]
        max_steps=max_steps,
        base_url=base_url,
        context_window=context_window,
        permission_mode=permission_mode,  # type: ignore[arg-type]
        tools=parse_tool_flag(tools, "--tools"),
        allowed_tools=frozenset(parse_tool_flag(allowed_tools, "--allowed-tools") or ()),
        disallowed_tools=frozenset(parse_tool_flag(disallowed_tools, "--disallowed-tools") or ()),
        background_reflection=background_reflection,
        recompile=recompile,
    )
    session = ChatSession(request, terminal.stdout, terminal.stderr)
    try:
        if streaming_input:
            from mini_letta.cli.options import lenient_stdin
            from mini_letta.cli.stream_input import run_stream_input

            code = run_stream_input(session, lenient_stdin(terminal.stdin))
        else:
            code = exit_code(session.turn(text))
    finally:
        session.close()
    lost = session.renderer.lost_output
    if lost is not None:
        from mini_letta.errors import MiniLettaError

        cid = session.store.conversation_id
        raise MiniLettaError(
            f"could not write to standard output ({lost}); the turn is recorded in "
            f"conversation {cid} (`mini-letta conversations show {cid}`)"
        )
    if code:
        raise click.exceptions.Exit(code)


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
