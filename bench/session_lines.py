"""What the interactive session's fitted lines and `/expand` cost.

Times, in-process: the status line fitted to 60 and 40 columns (drawn on every redraw of the
prompt), `/help` at 60 columns, and reading the last turn's tool calls back from the log
(`/expand`, Ctrl-O) at the end of a conversation of 10 and of 100,000 messages whose last turn
made 20 calls, then rendering one call whose output is 2,000 lines at 60 columns.

    python bench/session_lines.py [--messages 100000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from _common import fill_conversation, median_ms  # noqa: E402

from mini_letta.cli.commands.slash import help_lines  # noqa: E402
from mini_letta.cli.session_bar import SessionBar  # noqa: E402
from mini_letta.cli.tool_detail import load_last_turn_calls, render_call_detail  # noqa: E402
from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.conversations.messages import Message, ToolCall  # noqa: E402
from mini_letta.conversations.registry import create_conversation  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.reflection.state.outcome import ReflectionOutcome  # noqa: E402

CALLS = 20
OUTPUT = "\n".join(f"{i:>6}\tline {i} of a long tool output, " + "word " * 12 for i in range(2000))


def _last_turn(count: int) -> list[Message]:
    """A user message, then `count` tool calls (one assistant message each) and results."""
    messages = [Message("u-last", "user", "run the checks", "t")]
    for i in range(count):
        call = ToolCall(f"c{i}", "Bash", json.dumps({"command": f"pytest -q tests/part{i}"}))
        messages.append(Message(f"a{i}", "assistant", "", "t", tool_calls=(call,)))
        messages.append(Message(f"t{i}", "tool", OUTPUT, "t", tool_call_id=f"c{i}"))
    return messages


def _expand_ms(home: Home, messages: int, repeat: int) -> tuple[float, float]:
    store = create_conversation(home, f"agent-{messages}", SystemClock())
    fill_conversation(store, messages)
    store.append(_last_turn(CALLS))
    load = median_ms(lambda: load_last_turn_calls(store), repeat)
    last = load_last_turn_calls(store)[-1]
    render = median_ms(lambda: render_call_detail(last, 60), repeat)
    return load, render


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    bar = SessionBar("scout", "openai/gpt-4o-2024-08-06", 128_000, running=lambda: 0)
    bar.saw(ReflectionOutcome("the gate refused: " + "a secret " * 8, status="rejected"))
    draws = 1000
    for width in (60, 40):
        ms = median_ms(lambda w=width: [bar.text(w) for _ in range(draws)], args.repeat)
        print(f"status line at {width} columns: {1000 * ms / draws:.1f} µs a draw")
    print(f"/help at 60 columns: {median_ms(lambda: help_lines(60), args.repeat):.2f} ms")
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        for messages in (10, args.messages):
            load, render = _expand_ms(home, messages, args.repeat)
            print(
                f"/expand after {messages:,} messages ({CALLS} calls in the last turn): "
                f"read {load:.2f} ms, one call of 2,000 output lines at 60 columns {render:.1f} ms"
            )


if __name__ == "__main__":
    main()
