"""Options shared by several commands, declared once so their flags and help stay identical.

An option declared as an `OptionSpec` (cli/chat_args.py) becomes a click option here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from mini_letta.cli.chat_args import (
    AGENT,
    CONTEXT_WINDOW,
    MODEL,
    PERMISSION_MODE,
    RESUME,
    OptionSpec,
)
from mini_letta.cli.chat_args import PICK as PICK
from mini_letta.structs import replace

F = TypeVar("F", bound=Callable[..., object])


def check_nonempty(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """An id, name or text flag given as "" (or spaces) is a usage error, not "not given"."""
    values = value if isinstance(value, tuple) else (value,)
    if any(isinstance(item, str) and not item.strip() for item in values):
        raise click.BadParameter("must not be empty", ctx, param)
    return value


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


def click_option(spec: OptionSpec) -> Callable[[F], F]:
    """`spec` as a click option: its flags, help, type, default and check."""
    kind: Any = None  # click.Choice or click.IntRange
    if spec.choices is not None:
        kind = click.Choice(spec.choices)
    elif spec.minimum is not None:
        kind = click.IntRange(min=spec.minimum)
    settings: dict[str, Any] = {"help": spec.help, "type": kind}
    if spec.flag:
        settings["is_flag"] = True
    if spec.bare is not None:  # the value is optional: `-r` alone gives `bare`
        settings.update(is_flag=False, flag_value=spec.bare)
    if spec.metavar is not None:
        settings["metavar"] = spec.metavar
    if spec.default is not None:  # a flag's default, False, is click's
        settings.update(default=spec.default, show_default=True)
    if spec.check is not None:
        checks = {"nonempty": check_nonempty, "model": check_model, "base_url": check_base_url}
        settings["callback"] = checks[spec.check]
    return click.option(*spec.names, spec.param, **settings)


def click_options(specs: Sequence[OptionSpec]) -> Callable[[F], F]:
    """Every option of `specs`, listed in --help in their order."""

    def decorate(func: F) -> F:
        for spec in reversed(specs):  # the last decorator applied is listed first
            func = click_option(spec)(func)
        return func

    return decorate


agent_option = click_option(AGENT)
context_window_option = click_option(CONTEXT_WINDOW)
resume_option = click_option(RESUME)


def model_short_option(help_text: str) -> Callable[[F], F]:
    """-m/--model: the interactive session's and chat's (other commands say --model)."""
    return click_option(replace(MODEL, help=help_text))


def permission_mode_option(help_text: str) -> Callable[[F], F]:
    """--permission-mode as chat declares it, with this command's help."""
    return click_option(replace(PERMISSION_MODE, help=help_text))
