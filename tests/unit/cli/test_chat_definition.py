"""`chat` is declared once (cli/chat_args.py `CHAT_OPTIONS`): click's command is built from the
table, and the plain `chat -p TEXT` is read from the same table without click.

The plain form either declines (click parses the line, as for any command) or gives the very
parameters click's `chat` passes; each of its rules is pinned here against click itself.
"""

from __future__ import annotations

import json

import click
import pytest

from mini_letta.cli.chat_args import (
    CHAT_OPTIONS,
    MAX_STEPS,
    ChatArgs,
    chat_args,
    plain_chat_args,
    usage_problem,
)
from mini_letta.cli.commands.root import load_command
from mini_letta.loop.setup import DEFAULT_MAX_STEPS


def _click_args(argv: list[str]) -> ChatArgs | None:
    """What click's `chat` passes for `argv` and the command accepts; None if it refuses."""
    command = load_command("chat")
    try:
        ctx = command.make_context("chat", argv, help_option_names=[])
    except (click.UsageError, click.exceptions.Exit):
        return None
    args = chat_args(ctx.params)
    return None if usage_problem(args) is not None else args


def test_click_declares_exactly_the_table():
    command = load_command("chat")
    params = {param.name: param for param in command.params if param.name != "help"}
    assert list(params) == [spec.param for spec in CHAT_OPTIONS]  # --help lists them in order
    for spec in CHAT_OPTIONS:
        param = params[spec.param]
        assert isinstance(param, click.Option)
        assert (*param.opts, *param.secondary_opts) == spec.names
        assert param.is_flag == spec.flag
        assert param.help == spec.help
    given = command.make_context("chat", ["-p", "hi"], help_option_names=[]).params
    assert chat_args(given) == chat_args({"prompt": "hi"})  # click passes the table's defaults


def test_the_plain_form_reads_no_option_click_converts():
    plain = {spec.param for spec in CHAT_OPTIONS if spec.plain}
    assert {"model", "base_url", "max_steps", "context_window", "resume"}.isdisjoint(plain)
    assert {"prompt", "agent", "conversation", "new", "output_format"} <= plain


PLAIN_LINES = [
    ["-p", "hi"],
    ["--prompt", "你好", "--output-format", "json"],
    ["--new", "-p", "hi", "--agent", "bob", "--recompile"],
    ["-p", "hi", "--conversation", "conv-1", "--background-reflection"],
    ["-c", "-p", "hi"],
    ["-p", "hi", "--permission-mode", "plan", "--tools", "Read,Grep"],
    ["-p", "hi", "--input-format", "text", "--output-format", "stream-json"],
]


def test_common_headless_lines_take_the_plain_form():
    for words in PLAIN_LINES:
        plain = plain_chat_args(["chat", *words])
        assert plain is not None and plain == _click_args(words), words


UNUSUAL_LINES = [
    ["-p", "-"],  # standard input
    ["-p", "--new"],  # click takes the option's name as the prompt
    ["-p", "hi", "-p", "again"],  # click keeps the last
    ["-p", "hi", "-r", "conv-1"],  # its value is optional: click reads whether one follows
    ["-p", "hi", "-m", "mock"],
    ["-p", "  "],  # click's usage error
    ["-p", "hi", "--agent", ""],
    ["-p", "hi", "--output-format", "JSON"],  # not a choice
    ["-p", "hi", "--new", "--conversation", "c"],  # the command's usage error
    ["-c", "-p", "hi", "--new"],
    ["-p", "hi", "--input-format", "stream-json"],
    ["--input-format", "stream-json", "--output-format", "stream-json"],  # no prompt
    ["-p", "hi", "--output-format=json"],
    ["-phi"],
    ["-p", "hi", "--"],
    ["-p", "hi", "--model", "mock"],  # checked by a callback: click's
    ["-p", "hi", "--max-steps", "3"],  # converted: click's
    ["-p", "hi", "--prom", "x"],
    ["--help"],
    ["-p"],
]


def test_anything_unusual_goes_to_click():
    taken = [words for words in UNUSUAL_LINES if plain_chat_args(["chat", *words]) is not None]
    assert taken == []


def test_not_chat_is_not_the_plain_form():
    assert plain_chat_args([]) is None
    assert plain_chat_args(["status", "-p", "hi"]) is None
    assert plain_chat_args(["--version", "chat", "-p", "hi"]) is None


REFUSED_LINES = [
    ["-p", "hi", "--new", "--conversation", "c"],
    ["-c", "-p", "hi", "--conversation", "c"],
    ["--output-format", "json"],
    ["-p", "hi", "--input-format", "stream-json", "--output-format", "stream-json"],
    ["--input-format", "stream-json", "--output-format", "json"],
    ["-p", "hi", "-r"],  # picking from a list needs the interactive session
    ["-p", "hi", "-r", "c1", "--conversation", "c2"],
    ["-p", "hi", "-r", "c1", "--new"],
]


def test_click_refuses_what_the_one_check_refuses():
    for words in REFUSED_LINES:
        with pytest.raises(click.UsageError) as caught:
            load_command("chat").main(words, prog_name="chat", standalone_mode=False)
        params = load_command("chat").make_context("chat", words, help_option_names=[]).params
        assert caught.value.message == usage_problem(chat_args(params)), words


def test_defaults_are_the_turn_loops():
    assert MAX_STEPS == DEFAULT_MAX_STEPS == chat_args({}).max_steps


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
