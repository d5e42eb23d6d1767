"""The plain form of `chat -p TEXT`, read without click, decides exactly what click decides.

For any command line, `plain_chat_args` either declines (click parses it, as before) or gives
the very parameters click's `chat` command would get, for a line that click and the command's
own checks accept. Hypothesis builds the lines from options with values (often ones click
refuses), near misses and the ways click reads a word differently (`--opt=value`, `-pTEXT`,
`--`, `-`).
"""

from __future__ import annotations

import json

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mini_letta.cli.chat_args import ChatArgs, plain_chat_args
from mini_letta.cli.commands.root import load_command
from mini_letta.loop.setup import DEFAULT_MAX_STEPS

VALUES = ["hi", "你好", "", "  ", "-", "-x", "--new", "conv-1", "json", "JSON", "stream-json"]
OPTIONS = ["-p", "--prompt", "--agent", "--conversation", "--output-format", "--max-steps"]
OTHERS = [
    "--new", "--recompile", "--background-reflection", "--model", "mock", "-h", "--help", "--",
    "--output-format=json", "-phi", "--prom", "--input-format", "stream-json", "chat", "3",
    "-c", "--continue", "-r", "--resume",
]  # fmt: skip
# An option with a value (often one it refuses), or any other word alone.
UNITS = st.one_of(
    st.tuples(st.sampled_from(OPTIONS), st.sampled_from(VALUES)),
    st.tuples(st.sampled_from(OTHERS)),
)


def _click_args(argv: list[str]) -> ChatArgs | None:
    """What click's `chat` passes for `argv` and the command accepts; None if it refuses."""
    command = load_command("chat")
    try:
        ctx = command.make_context("chat", argv, help_option_names=[])
    except (click.UsageError, click.exceptions.Exit):
        return None
    params = dict(ctx.params)
    resume = params.pop("resume")  # the command folds -r ID into --conversation
    if resume is not None:
        if not resume.strip() or params["conversation"] is not None:
            return None
        params["conversation"] = resume.strip()
    args = ChatArgs(**params)
    refused = (
        args.prompt is None
        or not args.prompt.strip()
        or (args.new and args.conversation)
        or (args.continue_last and (args.new or args.conversation))
        or args.input_format != "text"
    )
    return None if refused else args


@settings(max_examples=400, deadline=None)
@given(
    head=st.sampled_from([[], ["-p", "hi"], ["--prompt", "你好"]]),  # most lines then are plain
    units=st.lists(UNITS, max_size=5),
)
def test_the_plain_form_is_click_or_declines(head, units):
    line = [*head, *(word for unit in units for word in unit)]
    plain = plain_chat_args(["chat", *line])
    if plain is not None:
        assert plain == _click_args(line)


@pytest.mark.parametrize(
    "words",
    [
        ["-p", "hi"],
        ["--prompt", "你好", "--output-format", "json"],
        ["--new", "-p", "hi", "--agent", "bob", "--recompile"],
        ["-p", "hi", "--conversation", "conv-1", "--background-reflection"],
    ],
)
def test_common_headless_lines_take_the_plain_form(words):
    plain = plain_chat_args(["chat", *words])
    assert plain is not None and plain == _click_args(words)


@pytest.mark.parametrize(
    "words",
    [
        ["-p", "-"],  # standard input
        ["-p", "--new"],  # click takes the option's name as the prompt
        ["-p", "hi", "-p", "again"],  # click keeps the last
        ["-p", "  "],  # click's usage error
        ["-p", "hi", "--new", "--conversation", "c"],
        ["-p", "hi", "--output-format=json"],
        ["-p", "hi", "--model", "mock"],  # checked by a callback: click's
        ["--help"],
    ],
)
def test_anything_unusual_goes_to_click(words):
    assert plain_chat_args(["chat", *words]) is None


def test_not_chat_is_not_the_plain_form():
    assert plain_chat_args([]) is None
    assert plain_chat_args(["status", "-p", "hi"]) is None
    assert plain_chat_args(["--version", "chat", "-p", "hi"]) is None


def test_defaults_are_the_turn_loops():
    assert ChatArgs().max_steps == DEFAULT_MAX_STEPS


def test_a_turn_prints_the_same_either_way(cli):
    plain = cli("chat", "-p", "hello there", "--output-format", "json", "--new")
    through_click = cli(
        "chat", "-p", "hello there", "--output-format", "json", "--new", "--max-steps", "20"
    )
    assert plain.code == through_click.code == 0
    assert plain.stderr == through_click.stderr
    first, second = json.loads(plain.stdout), json.loads(through_click.stdout)
    for varying in ("conversationId", "session_id", "durationMs", "duration_ms"):
        assert first.pop(varying) != second.pop(varying) or varying.startswith("duration")
    assert first == second  # the same agent, answer, steps, usage and reflection
