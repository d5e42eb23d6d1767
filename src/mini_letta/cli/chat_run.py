"""`chat`'s run, once its arguments are read (by click, or by cli/chat_args.py for the plain
`chat -p TEXT`): one headless turn, or with stream-json input one turn per stdin line."""

from __future__ import annotations

from mini_letta.cli.chat_args import ChatArgs, lenient_stdin, parse_tool_flag, read_prompt
from mini_letta.cli.headless import ChatSession, SessionRequest, exit_code
from mini_letta.cli.terminal import Terminal
from mini_letta.cli.world import world_of


def run_chat(args: ChatArgs, terminal: Terminal) -> int:
    """`chat`: one headless turn (or, with stream-json input, one per stdin line) on
    `terminal`, from arguments already checked; the exit code."""
    streaming_input = args.input_format == "stream-json"
    text = read_prompt(args.prompt, terminal.stdin) if args.prompt is not None else ""
    request = SessionRequest(
        world=world_of(terminal),
        agent_ref=args.agent,
        conversation_id=args.conversation_id,
        new=args.new,
        model=args.model,
        output_format=args.output_format or ("stream-json" if streaming_input else "text"),
        max_steps=args.max_steps,
        base_url=args.base_url,
        context_window=args.context_window,
        permission_mode=args.permission_mode,
        tools=parse_tool_flag(args.tools, "--tools"),
        allowed_tools=frozenset(parse_tool_flag(args.allowed_tools, "--allowed-tools") or ()),
        disallowed_tools=frozenset(
            parse_tool_flag(args.disallowed_tools, "--disallowed-tools") or ()
        ),
        background_reflection=args.background_reflection,
        recompile=args.recompile,
    )
    session = ChatSession(request, terminal.stdout, terminal.stderr)
    try:
        if streaming_input:
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
    return code
