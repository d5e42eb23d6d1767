"""Options shared by several commands, declared once so their flags and help stay identical."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from mini_letta.cli.chat_args import MAX_STEPS, OUTPUT_FORMATS
from mini_letta.tools.permissions import PERMISSION_MODES

F = TypeVar("F", bound=Callable[..., object])

OUTPUT_FORMAT_CHOICE = click.Choice(OUTPUT_FORMATS)


def check_nonempty(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """An id, name or text flag given as "" (or spaces) is a usage error, not "not given"."""
    values = value if isinstance(value, tuple) else (value,)
    if any(isinstance(item, str) and not item.strip() for item in values):
        raise click.BadParameter("must not be empty", ctx, param)
    return value


def agent_option(func: F) -> F:
    return click.option(
        "--agent",
        metavar="ID|NAME",
        callback=check_nonempty,
        help="The agent (default: this project's).",
    )(func)


def check_model(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A --model value that names a known provider; anything else is a usage error (exit 2)."""
    if value is None:
        return None
    from mini_letta.errors import MiniLettaError
    from mini_letta.llm.handles import parse_handle

    try:
        return parse_handle(value).raw
    except MiniLettaError as exc:
        raise click.BadParameter(str(exc), ctx, param) from exc


def check_base_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A --base-url that is an http(s) URL with a host; "" passes (it means "none")."""
    if not value:
        return value
    from mini_letta.errors import MiniLettaError
    from mini_letta.llm.catalog import normalize_base_url

    try:
        normalize_base_url(value, "URL")
    except MiniLettaError as exc:
        raise click.BadParameter(
            f"{value!r} is not an http:// or https:// URL (like http://localhost:8000/v1)",
            ctx,
            param,
        ) from exc
    return value.strip()


def check_agent_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An agent name the registry accepts, checked while parsing so the flag is named."""
    if value is None:
        return None
    from mini_letta.agents.registry import validate_agent_name
    from mini_letta.errors import MiniLettaError

    try:
        return validate_agent_name(value)
    except MiniLettaError as exc:
        raise click.BadParameter(str(exc), ctx, param) from exc


def model_option(help_text: str) -> Callable[[F], F]:
    return click.option("--model", metavar="HANDLE", callback=check_model, help=help_text)


def agent_options(func: F) -> F:
    """--agent, --conversation, --new, --model: which agent and conversation a turn uses."""
    func = model_short_option(
        "Model for this run only (mock, sonnet, openai/…); agent.json keeps its own."
    )(func)
    func = click.option(
        "--new", is_flag=True, help="Start a new conversation and make it current."
    )(func)
    func = click.option(
        "-c",
        "--continue",
        "continue_last",
        is_flag=True,
        help="Continue the project's last conversation (the default; as `claude -c`).",
    )(func)
    func = resume_option(func)
    func = click.option(
        "--conversation",
        metavar="ID",
        callback=check_nonempty,
        help="Continue this conversation.",
    )(func)
    return agent_option(func)


PICK = ""  # `-r` given without an ID: pick from a list (on a terminal)


def resume_option(func: F) -> F:
    """-r/--resume [ID], as `claude -r`: the value is optional (PICK when left out)."""
    return click.option(
        "-r",
        "--resume",
        metavar="[ID]",
        is_flag=False,
        flag_value=PICK,
        help="Continue conversation ID; without ID, pick one from a list (interactive only).",
    )(func)


def model_short_option(help_text: str) -> Callable[[F], F]:
    """-m/--model: the interactive session's and chat's (other commands say --model)."""
    return click.option("-m", "--model", metavar="MODEL", callback=check_model, help=help_text)


def max_steps_option(func: F) -> F:
    return click.option(
        "--max-steps",
        type=click.IntRange(min=1),
        default=MAX_STEPS,
        show_default=True,
        help="Most model steps in one turn.",
    )(func)


def context_window_option(func: F) -> F:
    return click.option(
        "--context-window",
        type=click.IntRange(min=1),
        metavar="TOKENS",
        help="Context window in tokens for this run (default: the agent's, else the model's).",
    )(func)


def base_url_option(func: F) -> F:
    return click.option(
        "--base-url",
        metavar="URL",
        callback=check_base_url,
        help="Server URL for an OpenAI-compatible or Anthropic model.",
    )(func)


def tool_options(func: F) -> F:
    """--tools, --allowed-tools, --disallowed-tools, --permission-mode."""
    func = click.option(
        "--permission-mode",
        type=click.Choice(PERMISSION_MODES),
        default="default",
        show_default=True,
        help="default asks before edits and commands (headless: refuses them); acceptEdits; "
        "bypassPermissions; plan (read-only).",
    )(func)
    func = click.option(
        "--disallowed-tools", metavar="NAMES", help="Tools this run may not use (comma-separated)."
    )(func)
    func = click.option(
        "--allowed-tools", metavar="NAMES", help="Tools that run without asking (comma-separated)."
    )(func)
    return click.option(
        "--tools",
        metavar="NAMES",
        help='The toolset, comma-separated (default: agent.json, else by model; "" for none).',
    )(func)
